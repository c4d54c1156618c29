//! The page's background worker: a second WebAssembly build, fetched the
//! first time the page asks it for a job (see `distlock::work`). Each
//! message is a request as JSON text; each reply goes back the same way.
//! A worker that leads the hazard explorer's run starts a crew of workers
//! of its own (this same build, one per core) and talks to them the same
//! way; terminating the lead ends its crew with it.
//!
//! Natively there is nothing to run: the jobs themselves are tested
//! through `distlock::work::Station`.

#[cfg(target_arch = "wasm32")]
fn main() {
    glue::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("distlock-worker runs only inside the page, as its Web Worker.");
}

#[cfg(target_arch = "wasm32")]
mod glue {
    use distlock::work::{Crew, Reply, Station, PROTOCOL_VERSION};
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

    /// A crew member. Requests wait until it says it is ready: one sent
    /// while its wasm is still loading would be lost.
    struct Member {
        worker: Worker,
        ready: bool,
        waiting: Vec<String>,
        _on_message: Closure<dyn FnMut(MessageEvent)>,
        _on_error: Closure<dyn FnMut(web_sys::Event)>,
    }

    impl Member {
        fn send(&mut self, request: String) {
            if self.ready {
                let _ = self.worker.post_message(&JsValue::from_str(&request));
            } else {
                self.waiting.push(request);
            }
        }
    }

    struct Here {
        scope: DedicatedWorkerGlobalScope,
        station: Station,
        crew: Vec<Member>,
        /// Dismissed members, terminated; their handlers are dropped on
        /// the next message, never while one of them runs.
        retired: Vec<Member>,
    }

    type Shared = Rc<RefCell<Here>>;

    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let cores = scope.navigator().hardware_concurrency() as u32;
        let here: Shared = Rc::new(RefCell::new(Here {
            scope: scope.clone(),
            station: Station::new(cores),
            crew: Vec::new(),
            retired: Vec::new(),
        }));
        let on_message = {
            let here = here.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let request = e.data().as_string().unwrap_or_default();
                let orders = {
                    let mut h = here.borrow_mut();
                    h.retired.clear();
                    let Here { scope, station, .. } = &mut *h;
                    let mut orders = Vec::new();
                    station.from_page(
                        &request,
                        &clock_ms(scope),
                        &mut |reply| post(scope, &reply),
                        &mut |order| orders.push(order),
                    );
                    orders
                };
                carry_out(&here, orders);
            })
        };
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the worker does.
        on_message.forget();
        // Tells the page (or the lead) the worker is ready, so requests
        // sent before this moment are not lost (they wait until it hears
        // this).
        post(&scope, "ready");
    }

    fn post(scope: &DedicatedWorkerGlobalScope, text: &str) {
        let _ = scope.post_message(&JsValue::from_str(text));
    }

    fn clock_ms(scope: &DedicatedWorkerGlobalScope) -> impl Fn() -> f64 {
        let performance = scope.performance();
        move || performance.as_ref().map_or(0.0, |p| p.now())
    }

    fn carry_out(here: &Shared, orders: Vec<Crew>) {
        for order in orders {
            match order {
                Crew::Hire(n) => {
                    // A member that cannot start ends the run (its lead
                    // hears why), so the rest are not started.
                    let _ = (0..n).all(|member| hire(here, member));
                }
                Crew::Send(member, request) => {
                    if let Some(m) = here.borrow_mut().crew.get_mut(member as usize) {
                        m.send(request);
                    }
                }
                Crew::Dismiss => {
                    let mut h = here.borrow_mut();
                    let dismissed = std::mem::take(&mut h.crew);
                    for m in &dismissed {
                        m.worker.set_onmessage(None);
                        m.worker.set_onerror(None);
                        m.worker.terminate();
                    }
                    h.retired.extend(dismissed);
                }
            }
        }
    }

    /// Starts crew member `member`: this same build, from the address the
    /// lead itself was started from. False if it could not start.
    fn hire(here: &Shared, member: u32) -> bool {
        let address = here.borrow().scope.location().href();
        let Ok(worker) = Worker::new(&address) else {
            let why = "This browser could not start a worker for the explorer's cells.";
            heard(here, member, &failed(why));
            return false;
        };
        let on_message = {
            let (here, worker) = (here.clone(), worker.clone());
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                if text != "ready" {
                    return heard(&here, member, &text);
                }
                let mut h = here.borrow_mut();
                if let Some(m) = h.crew.get_mut(member as usize) {
                    m.ready = true;
                    for request in m.waiting.drain(..) {
                        let _ = worker.post_message(&JsValue::from_str(&request));
                    }
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let on_error = {
            let here = here.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                heard(
                    &here,
                    member,
                    &failed("A worker running the explorer's cells stopped."),
                )
            })
        };
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        here.borrow_mut().crew.push(Member {
            worker,
            ready: false,
            waiting: Vec::new(),
            _on_message: on_message,
            _on_error: on_error,
        });
        true
    }

    /// A crew member's reply, handed to the station.
    fn heard(here: &Shared, member: u32, reply: &str) {
        let orders = {
            let mut h = here.borrow_mut();
            let Here { scope, station, .. } = &mut *h;
            let mut orders = Vec::new();
            station.from_crew(
                member,
                reply,
                &clock_ms(scope),
                &mut |r| post(scope, &r),
                &mut |order| orders.push(order),
            );
            orders
        };
        carry_out(here, orders);
    }

    fn failed(why: &str) -> String {
        let reply = Reply {
            v: PROTOCOL_VERSION,
            id: 0,
            html: String::new(),
            progress: String::new(),
            done: true,
            error: Some(why.into()),
            data: String::new(),
        };
        serde_json::to_string(&reply).unwrap_or_default()
    }
}
