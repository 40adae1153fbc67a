//! A small seeded generator for the randomized unit tests: the same sequence every run.

pub(crate) struct Draw(pub(crate) u64);

impl Draw {
    /// The next draw, below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }
}
