//! The three-way merge of an agent's rewrite of a block: its change, from the text it read
//! (`base`) to the text it wants, is rebased onto the block's `current` text, so that what a
//! person typed since the agent read the block is kept.
//!
//! It decides on words ([`words`]: letters, digits and their marks; every other character
//! separates): the texts are compared word by word, and the agent's change and the other one
//! are refused ([`Overlap`]) where they touch the same word or meet at one place — a word one
//! of them changed with the other's change right against it, or both inserting at one place.
//! So a merge never makes a word of an agent's letters and a person's: the result is the
//! union of whole-word changes, or a refusal. Changes separated by at least one unchanged
//! word or separator (a space, a comma) merge.
//!
//! The diff has a deadline: past it, it is coarser, never wrong, and may then see overlaps
//! where a finer one would not.

use std::ops::Range;
use std::time::{Duration, Instant};

use docs_client::blocknote::words;
use similar::{Algorithm, DiffOp};

/// How long one diff may take before it settles for a coarser result.
const DIFF_DEADLINE: Duration = Duration::from_millis(50);

/// Where the agent's change and the other one touch the same words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// Those words as the agent read them.
    pub read: String,
    /// The same stretch now.
    pub now: String,
}

/// One change to the base: its tokens `base` replaced by the tokens `new` of the other text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Change {
    base: Range<usize>,
    new: Range<usize>,
}

impl Change {
    /// Whether the two changes touch: they share a token of the base, or one ends where the
    /// other starts (an insertion right against a changed word, two insertions at one place).
    fn touches(&self, other: &Change) -> bool {
        self.base.start <= other.base.end && other.base.start <= self.base.end
    }
}

/// The changes that turn the tokens `from` into `to`, in order.
fn changes(from: &[&str], to: &[&str]) -> Vec<Change> {
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        from,
        to,
        Some(Instant::now() + DIFF_DEADLINE),
    );
    let mut out: Vec<Change> = vec![];
    for op in &ops {
        if matches!(op, DiffOp::Equal { .. }) {
            continue;
        }
        let (_, base, new) = op.as_tag_tuple();
        // Adjacent operations (a delete next to an insert) form one change.
        match out.last_mut() {
            Some(last) if last.base.end == base.start => {
                last.base.end = base.end;
                last.new.end = new.end;
            }
            _ => out.push(Change { base, new }),
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
    let (base, wanted, current) = (
        words::split(base),
        words::split(wanted),
        words::split(current),
    );
    let ours = changes(&base, &wanted);
    let theirs = changes(&base, &current);
    // The same change on both sides is made once.
    let same = |mine: &Change, other: &Change| {
        mine.base == other.base && wanted[mine.new.clone()] == current[other.new.clone()]
    };
    for mine in &ours {
        if let Some(other) = theirs
            .iter()
            .find(|other| mine.touches(other) && !same(mine, other))
        {
            let (mut start, mut end) = (
                mine.base.start.min(other.base.start),
                mine.base.end.max(other.base.end),
            );
            if start == end {
                // Two insertions at one place: named with what is either side of it.
                (start, end) = (start.saturating_sub(1), (end + 1).min(base.len()));
            }
            let now = start_in(&theirs, start, false)..start_in(&theirs, end, true);
            return Err(Overlap {
                read: base[start..end].concat(),
                now: current[now].concat(),
            });
        }
    }
    // The changes left touch no other: applied together, left to right.
    let mut all: Vec<(&Change, &[&str])> = ours
        .iter()
        .map(|c| (c, &wanted[..]))
        .chain(
            theirs
                .iter()
                .filter(|t| !ours.iter().any(|mine| same(mine, t)))
                .map(|c| (c, &current[..])),
        )
        .collect();
    all.sort_by_key(|(c, _)| c.base.start);
    let mut merged = String::new();
    let mut at = 0;
    for (change, text) in all {
        merged.extend(base[at..change.base.start].iter().copied());
        merged.extend(text[change.new.clone()].iter().copied());
        at = change.base.end;
    }
    merged.extend(base[at..].iter().copied());
    Ok(merged)
}

/// Where base token `offset` is in the others' text; at an insertion right there, before it
/// (`past_insertions` false) or after it. An offset inside one of their changes goes to that
/// change's start (or, `past_insertions`, its end) in their text.
fn start_in(theirs: &[Change], offset: usize, past_insertions: bool) -> usize {
    let mut moved: isize = 0;
    for c in theirs {
        if c.base.end < offset || (c.base.end == offset && past_insertions) {
            moved += c.new.len() as isize - c.base.len() as isize;
        } else if c.base.start < offset && offset < c.base.end {
            return if past_insertions {
                c.new.end
            } else {
                c.new.start
            };
        }
    }
    (offset as isize + moved) as usize
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::seeded::Draw;

    /// A text of up to 6 words drawn from a few, so that texts share and change words.
    fn random_text(rng: &mut StdRng) -> String {
        const WORDS: &[&str] = &["a", "b", "c", "d", "ee", "f."];
        let n = rng.random_range(0..7);
        (0..n)
            .map(|_| WORDS[rng.random_range(0..WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Seeded random texts: a merge is made or refused, never a panic (the convergence soak
    /// met one: an overlap whose end fell inside another change of the others').
    #[test]
    fn any_three_texts_merge_or_overlap() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let (base, wanted, current) = (
                random_text(&mut rng),
                random_text(&mut rng),
                random_text(&mut rng),
            );
            match merge3(&base, &wanted, &current) {
                Ok(_) => {}
                Err(overlap) => assert!(
                    current.contains(&overlap.now) && base.contains(&overlap.read),
                    "{base:?} {wanted:?} {current:?}: {overlap:?}"
                ),
            }
        }
    }

    fn refused(base: &str, wanted: &str, current: &str) -> (String, String) {
        let overlap = merge3(base, wanted, current).unwrap_err();
        (overlap.read, overlap.now)
    }

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
        // ... or in the next word: a space between the two changes is enough.
        assert_eq!(
            merge3("The Human race", "The Agent race", "The Human races"),
            Ok("The Agent races".into())
        );
    }

    #[test]
    fn nothing_changed_on_one_side() {
        assert_eq!(merge3("same", "new", "same"), Ok("new".into()));
        assert_eq!(merge3("same", "same", "theirs"), Ok("theirs".into()));
        assert_eq!(merge3("a", "both", "both"), Ok("both".into()));
    }

    /// The case: a person extends the word the agent rewrites.
    #[test]
    fn a_word_extended_or_typed_into_is_not_rewritten() {
        for now in ["Humankind", "Humans", "Hu-man", "Hugeman", "reHuman"] {
            assert_eq!(
                refused(
                    "The Human race",
                    "The Agent-edited race",
                    &format!("The {now} race")
                ),
                ("Human".into(), now.into()),
            );
        }
        // A word typed right against it is the same place too.
        assert_eq!(
            refused("The Human race", "The Agent race", "The Human, race"),
            ("Human".into(), "Human,".into())
        );
        assert_eq!(
            refused("quote me", "quoted me", "quota me"),
            ("quote".into(), "quota".into())
        );
        assert!(
            merge3(
                "First proposal: keep it short.",
                "First proposal: keep it very short.",
                "First proposal: replace everything here.",
            )
            .is_err()
        );
    }

    /// Two insertions at one place are refused: put one after the other, the end of one and
    /// the start of the other could make one word.
    #[test]
    fn insertions_at_one_place_are_refused() {
        // The stretch named is the place with what is either side of it.
        assert_eq!(
            refused("Notes", "Notes. Agent", "Notes, person"),
            ("Notes".into(), "Notes, person".into())
        );
        assert_eq!(
            refused("a  b", "a X b", "a Y b"),
            ("  ".into(), " Y ".into())
        );
        assert!(merge3("Notes", "Notes, again", "Notes, again and more").is_err());
    }

    #[test]
    fn the_same_change_on_both_sides_is_made_once() {
        assert_eq!(
            merge3("a cat sat", "a dog sat", "a dog sat down"),
            Ok("a dog sat down".into())
        );
    }

    /// Texts of words from small alphabets, so that they share letters and words.
    struct Random(Draw);

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0.below(n)
        }

        fn word(&mut self, alphabet: &[char]) -> String {
            (0..1 + self.below(4))
                .map(|_| alphabet[self.below(alphabet.len())])
                .collect()
        }

        fn separator(&mut self) -> &'static str {
            [" ", " ", " ", ", ", ". ", "-"][self.below(6)]
        }

        /// `tokens` with some words rewritten in `alphabet`, typed into (at their start, end
        /// or inside), or with words and separators inserted.
        fn edit(&mut self, tokens: &[String], alphabet: &[char]) -> Vec<String> {
            let mut out = tokens.to_vec();
            for _ in 0..1 + self.below(3) {
                let at = self.below(out.len() + 1);
                match self.below(4) {
                    0 if at < out.len() && words::is_word(&out[at]) => {
                        out[at] = self.word(alphabet);
                    }
                    1 if at < out.len() && words::is_word(&out[at]) => {
                        let typed = self.word(alphabet);
                        let cuts: Vec<usize> = out[at]
                            .char_indices()
                            .map(|(i, _)| i)
                            .chain([out[at].len()])
                            .collect();
                        let cut = cuts[self.below(cuts.len())];
                        out[at].insert_str(cut, &typed);
                    }
                    _ => {
                        let word = self.word(alphabet);
                        out.splice(at..at, [word, self.separator().to_owned()]);
                    }
                }
            }
            out
        }
    }

    /// For random texts, agent rewrites (in Latin capitals and digits) and person edits (in
    /// Greek letters): the merge is a refusal, or holds every word the agent wrote and every
    /// word the person wrote or typed into, each whole, and no word of both.
    #[test]
    fn every_merge_is_a_union_of_whole_words_or_a_refusal() {
        let base_letters: Vec<char> = "abcde".chars().collect();
        let agent_letters: Vec<char> = "ABC12".chars().collect();
        let person_letters: Vec<char> = "αβγ".chars().collect();
        let (mut merged, mut refusals) = (0, 0);
        for seed in 0..3000 {
            let mut random = Random(Draw(seed));
            let mut base = vec![];
            for _ in 0..2 + random.below(8) {
                base.push(random.word(&base_letters));
                base.push(random.separator().to_owned());
            }
            let wanted = random.edit(&base, &agent_letters).concat();
            let current = random.edit(&base, &person_letters).concat();
            let base = base.concat();
            let Ok(result) = merge3(&base, &wanted, &current) else {
                refusals += 1;
                continue;
            };
            merged += 1;
            let context = format!("seed {seed}: {base:?} → {wanted:?} / {current:?} = {result:?}");
            let result = words::split(&result);
            let has = |word: &str, letters: &[char]| word.chars().any(|c| letters.contains(&c));
            for word in &result {
                let mixed = has(word, &agent_letters) && has(word, &person_letters);
                assert!(!mixed, "a mixed word {word:?}; {context}");
            }
            let agent_words = words::split(&wanted)
                .into_iter()
                .filter(|w| has(w, &agent_letters));
            let person_words = words::split(&current)
                .into_iter()
                .filter(|w| has(w, &person_letters));
            for word in agent_words.chain(person_words) {
                assert!(result.contains(&word), "{word:?} is not whole; {context}");
            }
        }
        // Both outcomes are exercised.
        assert!(
            merged > 500 && refusals > 500,
            "{merged} merged, {refusals} refused"
        );
    }
}
