//! A client-side sliding-window limiter, the same shape as Django REST Framework's throttle,
//! so that we stay under the instance's budget (80 calls/min per user) instead of
//! discovering it through 429s.
//!
//! A task that needs several calls takes them all at once or none (`DocsClient::prepaid`: an open
//! takes its two), and the unused ones are given back.

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
}

impl RateLimiter {
    pub fn new(per_window: u32, window: Duration) -> Self {
        RateLimiter {
            capacity: per_window.max(1) as usize,
            window,
            history: Mutex::new(VecDeque::new()),
            refunds: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Waits until `count` more calls fit in the window, then records them all at once, so
    /// that a task needing several calls gets all or none of them (concurrent tasks taking
    /// one call at a time would share out the budget so that none gets all it needs). When
    /// that would take longer than `max_wait`, records nothing and returns the wait needed.
    /// Returns when the calls were recorded, for [`RateLimiter::refund`].
    pub async fn acquire_within(
        &self,
        count: usize,
        max_wait: Duration,
    ) -> Result<Instant, Duration> {
        let count = count.clamp(1, self.capacity);
        let mut history = self.history.lock().await;
        loop {
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
                return Ok(now);
            }
            // The call that must leave the window for `count` to fit.
            let blocking = history[history.len() + count - self.capacity - 1];
            let free_at = blocking + self.window;
            let wait = free_at.duration_since(now);
            if wait > max_wait {
                return Err(wait);
            }
            // Holding the lock while sleeping keeps callers in FIFO order.
            tokio::time::sleep_until(free_at).await;
        }
    }

    /// Gives back `count` calls recorded at `at` and never made.
    pub fn refund(&self, at: Instant, count: usize) {
        if count > 0 {
            self.refunds.lock().expect("refunds").push((at, count));
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
        // Two left: three more would take until the first three leave the window, 50 s on.
        assert_eq!(
            limiter.acquire_within(3, Duration::from_secs(30)).await,
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
}
