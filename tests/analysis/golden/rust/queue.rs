//! A bounded job queue with retry bookkeeping.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::time::Duration as Delay;

use crate::metrics::Counter;

/// Largest number of jobs the queue holds at once.
pub const MAX_JOBS: usize = 512;

static DEFAULT_BACKOFF: Delay = Delay::from_millis(250);

pub type JobId = u64;

/// Where a job is in its life cycle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JobState {
    Pending,
    Running { attempt: u32 },
    Failed(String),
}

/// Something the queue can run.
pub trait Task {
    fn name(&self) -> &str;
    fn run(&mut self) -> Result<(), QueueError>;
}

#[derive(Debug)]
pub struct QueueError {
    pub message: String,
}

pub struct Job {
    pub id: JobId,
    pub state: JobState,
    task: Box<dyn Task>,
}

pub struct JobQueue {
    jobs: VecDeque<Job>,
    finished: HashMap<JobId, JobState>,
    counter: Counter,
}

impl JobQueue {
    pub fn new() -> Self {
        JobQueue {
            jobs: VecDeque::new(),
            finished: HashMap::new(),
            counter: Counter::default(),
        }
    }

    pub fn push(&mut self, id: JobId, task: Box<dyn Task>) -> Result<(), QueueError> {
        if self.jobs.len() >= MAX_JOBS {
            return Err(QueueError::full());
        }
        self.jobs.push_back(Job { id, state: JobState::Pending, task });
        Ok(())
    }

    pub fn run_next(&mut self) -> Option<JobState> {
        let mut job = self.jobs.pop_front()?;
        let outcome = job.task.run();
        let state = settle(outcome);
        self.counter.increment();
        self.finished.insert(job.id, state.clone());
        Some(state)
    }
}

impl QueueError {
    fn full() -> Self {
        QueueError { message: format!("queue holds {} jobs", MAX_JOBS) }
    }
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "queue error: {}", self.message)
    }
}

mod retry {
    use super::JobState;

    pub fn should_retry(state: &JobState) -> bool {
        matches!(state, JobState::Failed(_))
    }
}

fn settle(outcome: Result<(), QueueError>) -> JobState {
    const LIMIT: u32 = 3;
    match outcome {
        Ok(()) => JobState::Running { attempt: LIMIT },
        Err(err) => JobState::Failed(err.message),
    }
}
