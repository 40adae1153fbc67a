//! A client-side sliding-window limiter, the same shape as Django REST Framework's throttle,
//! so that we stay under the instance's budget (80 calls/min per user) instead of
//! discovering it through 429s.
//!
//! A task that needs several calls takes them all at once or none (`DocsClient::prepaid`: an open
//! takes its two), and the unused ones are given back, as are calls the instance did not count
//! (a path no view of Docs answers). A call recorded is outstanding until it is settled (made
//! and counted) or given back: a task finding the budget short by no more than the outstanding
//! calls waits for them, within its longest wait (opens of an instance before Docs 5 give back
//! the content call a round trip later), where it is refused at once if they could not make
//! room.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

#[derive(Debug)]
pub struct RateLimiter {
    capacity: usize,
    window: Duration,
    history: Mutex<VecDeque<Instant>>,
    /// Calls recorded but never made, given back: (when they were recorded, how many). Kept
    /// apart so that giving back never waits (it happens on drop).
    refunds: std::sync::Mutex<Vec<(Instant, usize)>>,
    /// Calls recorded and neither settled nor given back yet.
    outstanding: std::sync::atomic::AtomicUsize,
    /// Told when outstanding calls are settled or given back.
    settled: tokio::sync::Notify,
}

impl RateLimiter {
    pub fn new(per_window: u32, window: Duration) -> Self {
        RateLimiter {
            capacity: per_window.max(1) as usize,
            window,
            history: Mutex::new(VecDeque::new()),
            refunds: std::sync::Mutex::new(Vec::new()),
            outstanding: std::sync::atomic::AtomicUsize::new(0),
            settled: tokio::sync::Notify::new(),
        }
    }

    /// Waits until `count` more calls fit in the window, then records them all at once, so
    /// that a task needing several calls gets all or none of them (concurrent tasks taking
    /// one call at a time would share out the budget so that none gets all it needs). When
    /// that would take longer than `max_wait`, records nothing and returns the wait needed.
    /// Returns when the calls were recorded, for [`RateLimiter::refund`]; each is outstanding
    /// until [`settle`](Self::settle)d or given back.
    pub async fn acquire_within(
        &self,
        count: usize,
        max_wait: Duration,
    ) -> Result<Instant, Duration> {
        let count = count.clamp(1, self.capacity);
        // `None`: no longest wait.
        let deadline = Instant::now().checked_add(max_wait);
        let mut history = self.history.lock().await;
        loop {
            // Told of calls settled from now on: none is missed between the count and the wait.
            let settled = self.settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            self.take_refunds(&mut history);
            let now = Instant::now();
            while history
                .front()
                .is_some_and(|t| now.duration_since(*t) >= self.window)
            {
                history.pop_front();
            }
            if history.len() + count <= self.capacity {
                history.extend(std::iter::repeat_n(now, count));
                self.outstanding
                    .fetch_add(count, std::sync::atomic::Ordering::AcqRel);
                return Ok(now);
            }
            let short = history.len() + count - self.capacity;
            // The call that must leave the window for `count` to fit.
            let free_at = history[short - 1] + self.window;
            let wait = free_at.duration_since(now);
            let left = deadline.map_or(Duration::MAX, |d| d.saturating_duration_since(now));
            // Holding the lock while waiting keeps callers in FIFO order.
            if wait <= left {
                tokio::select! {
                    () = tokio::time::sleep_until(free_at) => {}
                    () = &mut settled => {}
                }
            } else if self.outstanding() >= short && !left.is_zero() {
                // Outstanding calls may be given back and make room: waited for, within the
                // longest wait.
                let _ = tokio::time::timeout(left, settled).await;
            } else {
                return Err(wait);
            }
        }
    }

    /// `count` outstanding calls were made, and counted by the instance.
    pub fn settle(&self, count: usize) {
        if count > 0 {
            self.outstanding
                .fetch_sub(count, std::sync::atomic::Ordering::AcqRel);
            self.settled.notify_waiters();
        }
    }

    fn outstanding(&self) -> usize {
        self.outstanding.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Gives back `count` outstanding calls recorded at `at`: never made, or not counted.
    pub fn refund(&self, at: Instant, count: usize) {
        if count > 0 {
            self.refunds.lock().expect("refunds").push((at, count));
            self.outstanding
                .fetch_sub(count, std::sync::atomic::Ordering::AcqRel);
            self.settled.notify_waiters();
        }
    }

    fn take_refunds(&self, history: &mut VecDeque<Instant>) {
        for (at, count) in std::mem::take(&mut *self.refunds.lock().expect("refunds")) {
            for _ in 0..count {
                match history.iter().rposition(|t| *t == at) {
                    Some(i) => {
                        history.remove(i);
                    }
                    None => break,
                }
            }
        }
    }

    /// Calls recorded in the current window.
    #[cfg(test)]
    pub async fn used(&self) -> usize {
        let mut history = self.history.lock().await;
        self.take_refunds(&mut history);
        let now = Instant::now();
        history
            .iter()
            .filter(|t| now.duration_since(**t) < self.window)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn waits_for_the_oldest_call_to_leave_the_window() {
        let limiter = RateLimiter::new(3, Duration::from_secs(60));
        let start = Instant::now();
        let forever = Duration::MAX;
        for _ in 0..3 {
            limiter.acquire_within(1, forever).await.unwrap();
        }
        // Made and counted: nothing outstanding could make room.
        limiter.settle(3);
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert_eq!(limiter.used().await, 3);
        // Too long a wait is refused at once, and says how long it would be.
        assert_eq!(
            limiter.acquire_within(1, Duration::from_secs(30)).await,
            Err(Duration::from_secs(60))
        );
        assert_eq!(start.elapsed(), Duration::ZERO);
        limiter.acquire_within(1, forever).await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_secs(60));
        // The first three left the window when the fourth was let through.
        assert_eq!(limiter.used().await, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn several_calls_are_taken_all_or_none_and_unused_ones_given_back() {
        let limiter = RateLimiter::new(8, Duration::from_secs(60));
        let start = Instant::now();
        let at = limiter.acquire_within(3, Duration::ZERO).await.unwrap();
        tokio::time::advance(Duration::from_secs(10)).await;
        limiter.acquire_within(3, Duration::ZERO).await.unwrap();
        limiter.settle(3);
        // One of the first three made: two outstanding.
        limiter.settle(1);
        // Two left: three more would take until the first three leave the window, 50 s on.
        assert_eq!(
            limiter.acquire_within(3, Duration::ZERO).await,
            Err(Duration::from_secs(50))
        );
        assert_eq!(limiter.used().await, 6);
        // Two of the first three were not needed: given back, they make room at once.
        limiter.refund(at, 2);
        assert_eq!(limiter.used().await, 4);
        limiter.acquire_within(3, Duration::ZERO).await.unwrap();
        assert_eq!(limiter.used().await, 7);
        // Waiting for room: the remaining call of the first three leaves at 60 s.
        limiter.acquire_within(2, Duration::MAX).await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_secs(60));
        assert_eq!(limiter.used().await, 8);
    }

    #[tokio::test(start_paused = true)]
    async fn a_short_budget_waits_for_outstanding_calls_given_back() {
        let limiter = std::sync::Arc::new(RateLimiter::new(4, Duration::from_secs(60)));
        let start = Instant::now();
        let at = limiter.acquire_within(4, Duration::ZERO).await.unwrap();
        let waiting = tokio::spawn({
            let limiter = limiter.clone();
            async move { limiter.acquire_within(2, Duration::from_secs(30)).await }
        });
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert!(!waiting.is_finished());
        // Two of the four were not counted (an open's content call, an HTML 404).
        limiter.refund(at, 2);
        assert!(waiting.await.unwrap().is_ok());
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert_eq!(limiter.used().await, 4);
    }

    #[tokio::test(start_paused = true)]
    async fn a_short_budget_is_refused_once_the_outstanding_calls_were_made() {
        let limiter = std::sync::Arc::new(RateLimiter::new(4, Duration::from_secs(60)));
        let start = Instant::now();
        limiter.acquire_within(4, Duration::ZERO).await.unwrap();
        let waiting = tokio::spawn({
            let limiter = limiter.clone();
            async move { limiter.acquire_within(2, Duration::from_secs(30)).await }
        });
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert!(!waiting.is_finished());
        limiter.settle(4);
        assert_eq!(waiting.await.unwrap(), Err(Duration::from_secs(60)));
        assert_eq!(start.elapsed(), Duration::ZERO);
    }
}
