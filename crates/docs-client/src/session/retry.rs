//! When to try again: the delay before a reconnect or a save retried, growing to a cap, with
//! jitter so that many sessions do not come back at once.

use std::time::Duration;

use rand::Rng;

use super::SessionOptions;

/// Exponential backoff with jitter between the first and the longest reconnect delay.
pub(super) fn backoff(options: &SessionOptions, attempt: u32) -> Duration {
    let exp = options
        .reconnect_initial
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
    let capped = exp.min(options.reconnect_max);
    capped.mul_f64(rand::rng().random_range(0.75..1.25))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_the_cap_with_jitter() {
        let options = SessionOptions::default();
        for attempt in 1..40 {
            let delay = backoff(&options, attempt);
            let base = options
                .reconnect_initial
                .saturating_mul(1 << (attempt - 1).min(16))
                .min(options.reconnect_max);
            assert!(
                delay >= base.mul_f64(0.75) && delay <= base.mul_f64(1.25),
                "{attempt}: {delay:?}"
            );
        }
        assert!(backoff(&options, 1) <= Duration::from_millis(1250));
        assert!(backoff(&options, 30) >= Duration::from_millis(22_500));
    }
}
