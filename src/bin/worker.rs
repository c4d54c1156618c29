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
    use distlock::ui::worker::Work;
    use distlock::work::{Crew, Reply, Station};
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};
    use yew::Callback;

    struct Here {
        scope: DedicatedWorkerGlobalScope,
        station: Station,
        /// The crew, each member started and talked to as the page starts
        /// and talks to its worker.
        crew: Vec<Work>,
    }

    type Shared = Rc<RefCell<Here>>;

    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let cores = scope.navigator().hardware_concurrency() as u32;
        let here: Shared = Rc::new(RefCell::new(Here {
            scope: scope.clone(),
            station: Station::new(cores),
            crew: Vec::new(),
        }));
        let on_message = {
            let here = here.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let request = e.data().as_string().unwrap_or_default();
                let orders = {
                    let mut h = here.borrow_mut();
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
                // This same build, from the loader beside the lead's own
                // (`Work` names it relative to where it runs). A member
                // that cannot start says so at once, and its lead ends
                // the run.
                Crew::Hire(n) => {
                    for member in 0..n {
                        let (here_too, member) = (here.clone(), member);
                        let work = Work::start(Callback::from(move |reply| {
                            heard(&here_too, member, reply)
                        }));
                        here.borrow_mut().crew.push(work);
                    }
                }
                Crew::Send(member, job) => {
                    if let Some(work) = here.borrow().crew.get(member as usize) {
                        work.send(job);
                    }
                }
                // Dropping a `Work` terminates its worker. The member whose
                // reply led here is among them: wasm-bindgen frees a
                // handler that is running only once it returns.
                Crew::Dismiss => {
                    let dismissed = std::mem::take(&mut here.borrow_mut().crew);
                    drop(dismissed);
                }
            }
        }
    }

    /// A crew member's reply, handed to the station.
    fn heard(here: &Shared, member: u32, reply: Result<Reply, String>) {
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
}
