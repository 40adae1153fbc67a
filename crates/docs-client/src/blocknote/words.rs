//! Words, as an agent's rewrite of a text is merged and written: a change replaces whole
//! words, so that no word ends up made of an agent's letters and someone else's.
//!
//! A word is a run of letters and digits with the marks that go with them (a grapheme
//! cluster starting with a letter or digit: `Prrartηλ24πψ`, `naïve` with a combining
//! diaeresis, `क्षत्रिय`). Anything else — whitespace, punctuation, symbols, emoji — is not
//! part of a word, each of its grapheme clusters a separator of its own.

use unicode_segmentation::UnicodeSegmentation;

/// Whether a grapheme cluster (or a token of [`split`]) belongs to a word.
pub fn is_word(token: &str) -> bool {
    token.chars().next().is_some_and(char::is_alphanumeric)
}

/// `text` cut into its words and the separators between them, in order: joined, they are
/// `text` again.
pub fn split(text: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut word_start = None;
    for (at, grapheme) in text.grapheme_indices(true) {
        if is_word(grapheme) {
            word_start.get_or_insert(at);
            continue;
        }
        if let Some(start) = word_start.take() {
            tokens.push(&text[start..at]);
        }
        tokens.push(grapheme);
    }
    if let Some(start) = word_start {
        tokens.push(&text[start..]);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_letters_digits_and_their_marks() {
        assert_eq!(
            split("Prrartηλ24πψ, then Futτono72."),
            ["Prrartηλ24πψ", ",", " ", "then", " ", "Futτono72", "."]
        );
        // A combining mark stays with its letter; one after a space is a separator.
        assert_eq!(
            split("nai\u{308}ve \u{301}x"),
            ["nai\u{308}ve", " \u{301}", "x"]
        );
        assert_eq!(split("क्षत्रिय योद्धा"), ["क्षत्रिय", " ", "योद्धा"]);
        // Punctuation inside a word separates it; an emoji is one separator.
        assert_eq!(
            split("Agent-edited can't 👍🏽!"),
            ["Agent", "-", "edited", " ", "can", "'", "t", " ", "👍🏽", "!"]
        );
        assert_eq!(split(""), Vec::<&str>::new());
        assert!(is_word("24") && !is_word("\u{301}") && !is_word(""));
    }
}
