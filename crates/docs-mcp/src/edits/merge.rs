//! The three-way merge of an agent's rewrite of a block: its change, from the text it read
//! (`base`) to the text it wants, is rebased onto the block's `current` text, so that what a
//! person typed since the agent read the block is kept. It is refused only where the two
//! changes touch the same characters.
//!
//! Texts are compared character by character (with a deadline: past it the diff is coarser,
//! never wrong, and may then see overlaps where a finer one would not).

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

/// How long one diff may take before it settles for a coarser result.
const DIFF_DEADLINE: Duration = Duration::from_millis(50);

/// Where the agent's change and the other one touch the same text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// That stretch of text as the agent read it.
    pub read: String,
    /// The same stretch now.
    pub now: String,
}

/// One change to `base`: characters `[start, end)` replaced by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Change {
    start: usize,
    end: usize,
    text: String,
}

impl Change {
    fn is_insertion(&self) -> bool {
        self.start == self.end
    }

    /// Whether the two changes touch the same characters of the base. An insertion inside
    /// or at either edge of the other's range does (typing "est" right after the word the
    /// other side rewrites belongs to that word); two insertions at one place do not.
    fn overlaps(&self, other: &Change) -> bool {
        if self == other {
            return false;
        }
        match (self.is_insertion(), other.is_insertion()) {
            (true, true) => false,
            (true, false) => other.start <= self.start && self.start <= other.end,
            (false, true) => self.start <= other.start && other.start <= self.end,
            (false, false) => self.start < other.end && other.start < self.end,
        }
    }
}

/// The changes that turn `from` into `to`, in order, as character offsets into `from`.
fn changes(from: &[char], to: &[char]) -> Vec<Change> {
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        from,
        to,
        Some(Instant::now() + DIFF_DEADLINE),
    );
    let mut out: Vec<Change> = vec![];
    for op in &ops {
        let (start, end, new) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index, old_index + old_len, 0..0),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index, old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index,
                old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let text: String = to[new].iter().collect();
        // Adjacent operations (a delete next to an insert) form one change.
        match out.last_mut() {
            Some(last) if last.end == start => {
                last.end = end;
                last.text.push_str(&text);
            }
            _ => out.push(Change { start, end, text }),
        }
    }
    out
}

/// Rebases the change `base → wanted` onto `current` (which is `base` changed by others).
pub fn merge3(base: &str, wanted: &str, current: &str) -> Result<String, Overlap> {
    if current == base {
        return Ok(wanted.to_owned());
    }
    if wanted == base || wanted == current {
        return Ok(current.to_owned());
    }
    let base: Vec<char> = base.chars().collect();
    let ours = changes(&base, &wanted.chars().collect::<Vec<_>>());
    let theirs = changes(&base, &current.chars().collect::<Vec<_>>());
    for mine in &ours {
        if let Some(other) = theirs.iter().find(|t| mine.overlaps(t)) {
            let (start, end) = (mine.start.min(other.start), mine.end.max(other.end));
            let now_end = (end as isize + shift_before(&theirs, end)) as usize;
            let now_start = (start as isize + shift_before(&theirs, start)) as usize;
            let current: Vec<char> = current.chars().collect();
            return Err(Overlap {
                read: base[start..end].iter().collect(),
                now: current[now_start.min(current.len())..now_end.min(current.len())]
                    .iter()
                    .collect(),
            });
        }
    }
    // Both change lists are ordered and disjoint: apply them together, left to right; at one
    // insertion point, the others' text goes first (it is already there, before the cursor of
    // whoever typed it).
    let mut all: Vec<(&Change, u8)> = ours
        .iter()
        .map(|c| (c, 1))
        .chain(theirs.iter().filter(|t| !ours.contains(t)).map(|c| (c, 0)))
        .collect();
    all.sort_by_key(|(c, order)| (c.start, !c.is_insertion(), *order));
    let mut merged = String::new();
    let mut at = 0;
    for (change, _) in all {
        merged.extend(&base[at..change.start.max(at)]);
        merged.push_str(&change.text);
        at = at.max(change.end);
    }
    merged.extend(&base[at..]);
    Ok(merged)
}

/// How much the others' changes before `offset` (of the base) moved it in their text.
fn shift_before(theirs: &[Change], offset: usize) -> isize {
    theirs
        .iter()
        .filter(|c| c.end <= offset)
        .map(|c| c.text.chars().count() as isize - (c.end - c.start) as isize)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_others_typed_elsewhere_is_kept() {
        // The agent rewrites a word while a person types at the end.
        assert_eq!(
            merge3(
                "The quick brown fox.",
                "The slow brown fox.",
                "The quick brown fox. It jumps"
            ),
            Ok("The slow brown fox. It jumps".into())
        );
        // ... or at the start, or both.
        assert_eq!(
            merge3("b c d", "b X d", "a b c d e"),
            Ok("a b X d e".into())
        );
    }

    #[test]
    fn nothing_changed_on_one_side() {
        assert_eq!(merge3("same", "new", "same"), Ok("new".into()));
        assert_eq!(merge3("same", "same", "theirs"), Ok("theirs".into()));
        assert_eq!(merge3("a", "both", "both"), Ok("both".into()));
    }

    #[test]
    fn insertions_at_one_place_keep_the_others_text_first() {
        assert_eq!(
            merge3("Notes", "Notes. Agent", "Notes, person"),
            Ok("Notes, person. Agent".into())
        );
    }

    #[test]
    fn changes_of_the_same_characters_are_refused() {
        assert_eq!(
            merge3("quote me", "quoted me", "quota me"),
            Err(Overlap {
                read: "e".into(),
                now: "a".into()
            })
        );
        assert!(
            merge3(
                "First proposal: keep it short.",
                "First proposal: keep it very short.",
                "First proposal: replace everything here.",
            )
            .is_err()
        );
        // Typing inside the range the agent rewrites, or right at its edge, overlaps it.
        assert!(merge3("abcdef", "aXf", "abcZdef").is_err());
        assert!(merge3("The quick fox", "The slow fox", "The quickest fox").is_err());
    }

    #[test]
    fn the_same_change_on_both_sides_is_made_once() {
        assert_eq!(
            merge3("a cat sat", "a dog sat", "a dog sat down"),
            Ok("a dog sat down".into())
        );
    }
}
