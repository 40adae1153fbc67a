//! A client-side sliding-window limiter, the same shape as Django REST Framework's throttle,
//! so that we stay under the instance's budget (80 calls/min per user) instead of
//! discovering it through 429s.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio::time::Instant;

#[derive(Debug)]
pub struct RateLimiter {
    capacity: usize,
    window: Duration,
    history: Mutex<VecDeque<Instant>>,
}

impl RateLimiter {
    pub fn new(per_window: u32, window: Duration) -> Self {
        RateLimiter {
            capacity: per_window.max(1) as usize,
            window,
            history: Mutex::new(VecDeque::new()),
        }
    }

    /// Waits until one more call fits in the window, then records it. When that would take
    /// longer than `max_wait`, records nothing and returns the wait needed instead.
    pub async fn acquire_within(&self, max_wait: Duration) -> Result<(), Duration> {
        let mut history = self.history.lock().await;
        loop {
            let now = Instant::now();
            while history
                .front()
                .is_some_and(|t| now.duration_since(*t) >= self.window)
            {
                history.pop_front();
            }
            if history.len() < self.capacity {
                history.push_back(now);
                return Ok(());
            }
            let oldest = *history.front().expect("history is full");
            let free_at = oldest + self.window;
            let wait = free_at.duration_since(now);
            if wait > max_wait {
                return Err(wait);
            }
            // Holding the lock while sleeping keeps callers in FIFO order.
            tokio::time::sleep_until(free_at).await;
        }
    }

    /// Calls recorded in the current window.
    #[cfg(test)]
    pub async fn used(&self) -> usize {
        let history = self.history.lock().await;
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
            limiter.acquire_within(forever).await.unwrap();
        }
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert_eq!(limiter.used().await, 3);
        // Too long a wait is refused at once, and says how long it would be.
        assert_eq!(
            limiter.acquire_within(Duration::from_secs(30)).await,
            Err(Duration::from_secs(60))
        );
        assert_eq!(start.elapsed(), Duration::ZERO);
        limiter.acquire_within(forever).await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_secs(60));
        // The first three left the window when the fourth was let through.
        assert_eq!(limiter.used().await, 1);
    }
}
