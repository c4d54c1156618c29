//! Predict, then see: a tour's Next stops first at a moment's question;
//! the visitor's answer (or a skip) plays the run to the moment, and its
//! caption opens with whether the prediction held. Answers live in the
//! page's memory only, with the story: nothing is scored or stored.

use super::state::{AppState, Story};
use crate::lesson::tour::Question;

/// The predictions of one tour.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quiz {
    /// The moment whose question is up, waiting for an answer.
    pub asking: Option<usize>,
    /// The answer chosen for it so far, not yet sent.
    pub pick: Option<usize>,
    /// What the visitor said before each moment, in the order asked: an
    /// answer, or `None` for a skipped question. (A list, not a map: a
    /// tour has a handful, and a map's code costs the page bytes.)
    pub said: Vec<(usize, Option<usize>)>,
}

impl Quiz {
    /// Forgets the answers from moment `from` on: going back before a
    /// question asks it again.
    pub fn before(&self, from: usize) -> Quiz {
        Quiz {
            said: self
                .said
                .iter()
                .filter(|(k, _)| *k < from)
                .copied()
                .collect(),
            ..Quiz::default()
        }
    }

    fn said_at(&self, index: usize) -> Option<Option<usize>> {
        self.said.iter().find(|(k, _)| *k == index).map(|&(_, v)| v)
    }

    /// Whether Next must ask moment `index`'s question before playing to it.
    pub fn must_ask(&self, index: usize, question: Option<&Question>) -> bool {
        question.is_some() && self.asking != Some(index) && self.said_at(index).is_none()
    }

    /// The answer given for moment `index`, if one was (not skipped).
    pub fn picked(&self, index: usize) -> Option<usize> {
        self.said_at(index).flatten()
    }
}

/// How a caption opens once its moment plays after a prediction: whether
/// it held (its lead, in bold), then why, or the misconception when not.
pub fn verdict(question: &Question, picked: usize) -> Option<(String, &str)> {
    let answer = question.answers.get(picked)?;
    let lead = if picked == question.right {
        "Your prediction held.".to_string()
    } else {
        format!("Not this time: you said \u{201c}{}\u{201d}.", answer.text)
    };
    Some((lead, &answer.why))
}

impl AppState {
    /// Next at a question: the clock stays stopped and the question is up.
    pub(crate) fn ask(&self, story: &Story, index: usize) -> AppState {
        AppState {
            story: Some(Story {
                quiz: Quiz {
                    asking: Some(index),
                    pick: None,
                    said: story.quiz.said.clone(),
                },
                ..story.clone()
            }),
            running: false,
            stop_at: None,
            notice: None,
            ..AppState::clone(self)
        }
    }

    /// An answer chosen, not yet sent.
    pub(crate) fn pick(&self, answer: usize) -> AppState {
        let Some(story) = self.story.as_ref().filter(|s| s.quiz.asking.is_some()) else {
            return AppState::clone(self);
        };
        AppState {
            story: Some(Story {
                quiz: Quiz {
                    pick: Some(answer),
                    ..story.quiz.clone()
                },
                ..story.clone()
            }),
            ..AppState::clone(self)
        }
    }

    /// The visitor's answer to the question that is up (`None`: skipped),
    /// and the run played to its moment.
    pub(crate) fn answer(&self, picked: Option<usize>) -> AppState {
        let Some(story) = &self.story else {
            return AppState::clone(self);
        };
        let Some(index) = story.quiz.asking else {
            return AppState::clone(self);
        };
        let mut said = story.quiz.before(index).said;
        said.push((index, picked));
        AppState {
            story: Some(Story {
                quiz: Quiz {
                    said,
                    ..Quiz::default()
                },
                ..story.clone()
            }),
            ..AppState::clone(self)
        }
        .tour_next()
    }
}
