//! Predict, then see, in the page: Next stops first at a moment's question,
//! an answer (or a skip) plays to the moment and the caption says whether
//! the prediction held; Back asks again; `questions=off` in the address
//! plays straight through, and the embed carries it.

#![cfg(not(target_arch = "wasm32"))]

use distlock::ui::embed::{EmbedSpec, PageRequest};
use distlock::ui::quiz::verdict;
use distlock::ui::state::{Action, AppState};
use std::rc::Rc;
use yew::Reducible;

use crate::common;
fn opened(query: &str) -> Rc<AppState> {
    Rc::new(AppState::opened(
        None,
        &PageRequest::parse(query, "", false),
    ))
}

fn run_to_stop(mut state: Rc<AppState>) -> Rc<AppState> {
    for _ in 0..10_000 {
        if !state.running {
            break;
        }
        let frame_ms = state.frame_ms();
        state = state.reduce(Action::Tick(frame_ms));
    }
    assert!(!state.running, "the clock stopped");
    state
}

fn next(state: Rc<AppState>) -> Rc<AppState> {
    run_to_stop(state.reduce(Action::TourNext))
}

/// The first story on etcd, at its second key moment: the next one (B
/// takes over) is the first with a question.
fn before_the_takeover() -> Rc<AppState> {
    let state = next(next(opened("?preset=gc-pause&system=etcd")));
    assert_eq!(state.story.as_ref().unwrap().quiz.asking, None);
    state
}

#[tokio::test(flavor = "current_thread")]
async fn next_asks_first_and_the_clock_waits_for_the_answer() {
    let before = before_the_takeover();
    let now = before.sim.borrow().now();
    let asked = before.reduce(Action::TourNext);
    assert!(!asked.running, "a question stops the clock");
    assert_eq!(asked.sim.borrow().now(), now, "nothing played yet");
    assert_eq!(asked.story.as_ref().unwrap().quiz.asking, Some(2));
    let html = common::render_stories(&asked).await;
    assert!(html.contains("Key moment 3 of 6: predict first"), "{html}");
    assert!(html.contains("role=\"radiogroup\""), "{html}");
    assert!(
        html.contains("aria-labelledby=\"tour-ask-2\"")
            && html.contains("id=\"tour-ask-2\"")
            && html.contains("When B gets the lock, what will A believe?"),
        "the group is named by its question: {html}"
    );
    assert_eq!(html.matches("type=\"radio\"").count(), 2, "{html}");
    assert!(html.contains("A still believes it holds it"), "{html}");
    assert!(html.contains("Skip and see"), "{html}");
    assert!(!html.contains(">Next<"), "{html}");

    // A choice is kept until sent; the button then plays to see it.
    let picked = asked.reduce(Action::TourPick(1));
    assert_eq!(picked.story.as_ref().unwrap().quiz.pick, Some(1));
    assert!(!picked.running);
    let html = common::render_stories(&picked).await;
    assert!(html.contains("See what happens"), "{html}");
    assert_eq!(html.matches("checked").count(), 1, "{html}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_wrong_answer_plays_to_the_moment_and_names_the_misconception() {
    let asked = before_the_takeover().reduce(Action::TourNext);
    let moment = asked.story.as_ref().unwrap().tour[2].clone();
    let question = moment.question.clone().expect("a question");
    let wrong = 1 - question.right;
    let played = run_to_stop(asked.reduce(Action::TourAnswer(Some(wrong))));
    assert_eq!(played.sim.borrow().now(), moment.at);
    let html = common::render_stories(&played).await;
    assert!(html.contains("Not this time: you said"), "{html}");
    assert!(
        html.contains("the service hands the lock on by its own clock"),
        "{html}"
    );
    assert!(html.contains("Key moment 3 of 6"), "{html}");
    assert!(html.contains(">Next<"), "{html}");

    // Back before it: the question is asked again, and this time held.
    let back = played.reduce(Action::TourBack);
    let again = back.reduce(Action::TourNext);
    assert_eq!(again.story.as_ref().unwrap().quiz.asking, Some(2));
    let right = run_to_stop(again.reduce(Action::TourAnswer(Some(question.right))));
    let html = common::render_stories(&right).await;
    assert!(html.contains("Your prediction held."), "{html}");

    // Replaying the tour asks everything again.
    let replayed = run_to_stop(right.reduce(Action::ReplayTour));
    assert!(replayed.story.as_ref().unwrap().quiz.said.is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_skipped_question_plays_on_without_a_verdict() {
    let asked = before_the_takeover().reduce(Action::TourNext);
    let skipped = run_to_stop(asked.reduce(Action::TourAnswer(None)));
    let html = common::render_stories(&skipped).await;
    assert!(html.contains("Key moment 3 of 6, t="), "{html}");
    assert!(!html.contains("prediction held") && !html.contains("Not this time"));
    // Next with the question up skips it too.
    let asked = before_the_takeover().reduce(Action::TourNext);
    let nexted = run_to_stop(asked.reduce(Action::TourNext));
    assert_eq!(nexted.sim.borrow().now(), skipped.sim.borrow().now());
}

#[test]
fn questions_off_in_the_address_plays_straight_to_each_moment_and_the_embed_carries_it() {
    let quiet = opened("?preset=gc-pause&system=etcd&questions=off");
    assert!(!quiet.questions);
    assert!(opened("?preset=gc-pause").questions, "on by default");
    assert!(opened("?preset=gc-pause&questions=on").questions);
    let third = next(next(next(quiet)));
    let story = third.story.as_ref().unwrap();
    assert_eq!(third.sim.borrow().now(), story.tour[2].at);
    assert!(story.quiz.said.is_empty());
    let spec = EmbedSpec::of(third.story_address(), third.config().backend, false);
    let src = spec.src("https://example.org/sim/", "");
    assert_eq!(
        src,
        "https://example.org/sim/?embed=1&preset=gc-pause&system=etcd&fencing=0&questions=off"
    );
    let on = opened("?preset=gc-pause&system=etcd");
    let spec = EmbedSpec::of(on.story_address(), on.config().backend, false);
    let src = spec.src("https://example.org/sim/", "");
    assert!(!src.contains("questions"), "on is the default: {src}");
}

#[test]
fn a_verdict_says_whether_the_prediction_held() {
    let state = opened("?preset=gc-pause&system=etcd");
    let story = state.story.as_ref().unwrap();
    let q = story
        .tour
        .iter()
        .find_map(|m| m.question.clone())
        .expect("a question");
    let (held, why) = verdict(&q, q.right).unwrap();
    assert_eq!(held, "Your prediction held.");
    assert_eq!(why, q.answers[q.right].why);
    let wrong = (q.right + 1) % q.answers.len();
    let (missed, why) = verdict(&q, wrong).unwrap();
    assert!(missed.starts_with("Not this time: you said"), "{missed}");
    assert!(missed.contains(&q.answers[wrong].text), "{missed}");
    assert_eq!(why, q.answers[wrong].why);
    assert_eq!(verdict(&q, 9), None);
}
