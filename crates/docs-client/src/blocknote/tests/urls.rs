//! Link targets and media URLs: which new content may hold, read as a browser reads them;
//! what the document holds is kept by rewrites and put back by undos.

use super::*;
use crate::blocknote::urls::refusal;

fn scheme(name: &str) -> Option<String> {
    Some(format!("its scheme `{name}:` is not allowed"))
}

fn relative() -> Option<String> {
    Some(
        "it is a relative address, and only a path on the Docs instance (one `/` first) may be"
            .into(),
    )
}

#[test]
fn only_web_and_mail_addresses_and_paths_on_the_instance_are_allowed() {
    for (url, reason) in [
        ("javascript:alert(1)", scheme("javascript")),
        // A browser reads the scheme case-insensitively, after dropping leading controls and
        // spaces and every tab and newline.
        ("JaVaScRiPt:alert(1)", scheme("javascript")),
        (" javascript:alert(1)", scheme("javascript")),
        ("\u{1}\u{1f} javascript:alert(1)", scheme("javascript")),
        ("java\tscript:alert(1)", scheme("javascript")),
        ("java\nscr\ript:alert(1)", scheme("javascript")),
        ("vbscript:msgbox(1)", scheme("vbscript")),
        ("data:text/html,<script>alert(1)</script>", scheme("data")),
        ("file:///etc/passwd", scheme("file")),
        ("ftp://files.example.org/a", scheme("ftp")),
        ("tel:+33123456789", scheme("tel")),
        // Character references and percent-encoding are no scheme: a relative address.
        ("&#106;avascript:alert(1)", relative()),
        ("%6Aavascript:alert(1)", relative()),
        // Relative addresses other than a path on the instance.
        ("page.html", relative()),
        ("#section", relative()),
        ("?q=1", relative()),
        ("//evil.example/x", relative()),
        ("/\\evil.example/x", relative()),
        ("/\t/evil.example/x", relative()),
        ("\\\\evil.example\\x", relative()),
        (" //evil.example", relative()),
        ("", relative()),
        (
            "https://exa mple.org/",
            Some("it is not a valid URL (invalid international domain name)".into()),
        ),
        (
            "https://",
            Some("it is not a valid URL (empty host)".into()),
        ),
    ] {
        assert_eq!(refusal(url, UrlUse::Link), reason, "{url:?}");
        assert_eq!(refusal(url, UrlUse::Media), reason, "{url:?}");
    }
    for url in [
        "https://example.org/a?b=c#d",
        "HTTPS://EXAMPLE.ORG",
        "http://localhost:8071/docs/x/",
        "  https://example.org/",
        "https://docs.example.org/media/6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f/attachments/0a1b2c3d-3b7d-4c1a-9e2f-6f1c2a4e5f00.png",
        "/docs/6f1c2a4e-3b7d-4c1a-9e2f-0a1b2c3d4e5f/",
        "/media/6f1c2a4e/attachments/x.png",
        "/javascript:alert(1)",
    ] {
        assert_eq!(refusal(url, UrlUse::Link), None, "{url:?}");
        assert_eq!(refusal(url, UrlUse::Media), None, "{url:?}");
    }
    assert_eq!(refusal("mailto:ada@example.org", UrlUse::Link), None);
    assert_eq!(
        refusal("MAILTO:ada@example.org", UrlUse::Media),
        scheme("mailto")
    );
}

#[test]
fn where_a_url_goes() {
    for (url, host) in [
        ("https://docs.example.org/docs/x/", Some("docs.example.org")),
        (
            "https://docs.example.org@evil.example/x",
            Some("evil.example"),
        ),
        ("http://localhost:8071/x", Some("localhost:8071")),
        ("https://docs.example.org:443/x", Some("docs.example.org")),
        ("https://Bücher.example/", Some("xn--bcher-kva.example")),
        ("https://[::1]:8080/", Some("[::1]:8080")),
        ("/docs/x/", None),
        ("mailto:ada@example.org", None),
    ] {
        assert_eq!(host_of(url).as_deref(), host, "{url}");
    }
}

fn unsafe_url(what: &str, url: &str, reason: Option<String>) -> ModelError {
    ModelError::UnsafeUrl {
        what: what.into(),
        url: url.into(),
        reason: reason.unwrap(),
    }
}

fn link(text: &str, href: &str) -> Inline {
    Inline::Text(TextRun {
        link: Some(href.into()),
        ..TextRun::plain(text)
    })
}

/// Each way new content holds a URL refuses an unsafe one, and the refusal writes nothing.
#[test]
fn new_content_with_an_unsafe_url_is_refused_and_writes_nothing() {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        insert_blocks(
            &mut txn,
            &f,
            &Position::End,
            &[NewBlock::new("paragraph").text("Kept")],
        )
        .unwrap();
    }
    let sv = d.transact().state_vector();
    let link_target = |url: &str, reason| unsafe_url("the link target", url, reason);
    let image_url = |url: &str, reason| unsafe_url("prop `url` of `image`", url, reason);
    let cases: Vec<(Vec<NewBlock>, ModelError)> = vec![
        (
            import_markdown("[here](javascript:alert(1))").unwrap(),
            link_target("javascript:alert(1)", scheme("javascript")),
        ),
        // Markdown decodes character references before: this is `javascript:`.
        (
            import_markdown("[here](&#106;avascript:alert(1))").unwrap(),
            link_target("javascript:alert(1)", scheme("javascript")),
        ),
        (
            import_markdown("<JAVASCRIPT:alert(1)>").unwrap(),
            link_target("JAVASCRIPT:alert(1)", scheme("javascript")),
        ),
        (
            import_markdown("| a |\n|---|\n| [x](file:///etc/passwd) |").unwrap(),
            link_target("file:///etc/passwd", scheme("file")),
        ),
        (
            import_markdown("- ok\n  - [x](//evil.example/)").unwrap(),
            link_target("//evil.example/", relative()),
        ),
        (
            import_markdown("![logo](file:///etc/passwd)").unwrap(),
            image_url("file:///etc/passwd", scheme("file")),
        ),
        (
            vec![NewBlock::new("paragraph").inline(vec![link("x", " java\tscript:alert(1)")])],
            link_target(" java\tscript:alert(1)", scheme("javascript")),
        ),
        (
            vec![NewBlock::new("image").prop("url", "javascript:alert(1)")],
            image_url("javascript:alert(1)", scheme("javascript")),
        ),
        (
            vec![NewBlock::new("file").prop("url", "mailto:ada@example.org")],
            unsafe_url(
                "prop `url` of `file`",
                "mailto:ada@example.org",
                scheme("mailto"),
            ),
        ),
        // Inside an allowed parent: nothing at all is written.
        (
            vec![
                NewBlock::new("paragraph")
                    .text("parent")
                    .child(NewBlock::new("video").prop("url", "data:video/mp4;base64,AAAA")),
            ],
            unsafe_url(
                "prop `url` of `video`",
                "data:video/mp4;base64,AAAA",
                scheme("data"),
            ),
        ),
    ];
    for (blocks, expected) in cases {
        let mut txn = d.transact_mut();
        assert_eq!(
            insert_blocks(&mut txn, &f, &Position::End, &blocks),
            Err(expected.clone()),
            "{blocks:?}"
        );
        drop(txn);
        assert_eq!(d.transact().state_vector(), sv, "nothing written");
        for block in &blocks {
            assert_eq!(validate_block(block), Err(expected.clone()));
        }
    }
    assert_eq!(
        comment_body_from_markdown("See [this](javascript:alert(1))"),
        Err(link_target("javascript:alert(1)", scheme("javascript")))
    );
    assert_eq!(
        link_target("javascript:alert(1)", scheme("javascript")).to_string(),
        "the link target \"javascript:alert(1)\" is refused: its scheme `javascript:` is not \
         allowed; links may be http, https or mailto URLs, media http or https URLs, or either \
         a path on the Docs instance (/docs/<id>/, /media/...)"
    );
}

#[test]
fn allowed_urls_are_written_as_given() {
    let (d, f) = doc();
    let mut blocks = import_markdown(
        "[a](https://example.org/a) [b](mailto:ada@example.org) [c](/docs/x/) <https://example.org/auto>",
    )
    .unwrap();
    blocks.push(NewBlock::new("image").prop("url", "https://docs.example.org/media/x.png"));
    blocks.push(NewBlock::new("pdf").prop("url", "/media/x/attachments/y.pdf"));
    blocks.push(NewBlock::new("audio"));
    {
        let mut txn = d.transact_mut();
        insert_blocks(&mut txn, &f, &Position::End, &blocks).unwrap();
    }
    let read = read(&d, &f);
    let urls: Vec<(UrlUse, String, String)> = read
        .blocks
        .iter()
        .flat_map(block_urls)
        .map(|u| (u.url_use, u.url, u.text))
        .collect();
    let link = |url: &str, text: &str| (UrlUse::Link, url.to_owned(), text.to_owned());
    let media = |url: &str| (UrlUse::Media, url.to_owned(), String::new());
    assert_eq!(
        urls,
        [
            link("https://example.org/a", "a"),
            link("mailto:ada@example.org", "b"),
            link("/docs/x/", "c"),
            link("https://example.org/auto", "https://example.org/auto"),
            media("https://docs.example.org/media/x.png"),
            media("/media/x/attachments/y.pdf"),
        ]
    );
}

/// A document holding other links reads as it is; a rewrite may keep them, not add others;
/// what is read from the document goes back as it was.
#[test]
fn what_the_document_holds_is_read_kept_and_put_back() {
    let (d, f) = doc();
    let stored = vec![
        NewBlock::new("paragraph").inline(vec![
            link("call", "tel:+33123456789"),
            t(" or "),
            link("run", "javascript:alert(1)"),
        ]),
        NewBlock::new("image").prop("url", "file:///srv/logo.png"),
    ];
    assert!(validate_block(&stored[0]).is_err());
    let as_read = Writing::as_read(EditorSchema::BASE);
    validate_block_in(&stored[0], as_read).unwrap();
    {
        let mut txn = d.transact_mut();
        insert_blocks_in(&mut txn, &f, &Position::End, &stored, as_read).unwrap();
    }
    let document = read(&d, &f);
    let (para, image) = (document.blocks[0].id.clone(), document.blocks[1].id.clone());
    assert_eq!(
        document.blocks[0].inline().unwrap(),
        [
            link("call", "tel:+33123456789"),
            t(" or "),
            link("run", "javascript:alert(1)")
        ]
    );
    assert_eq!(
        document.blocks[1].props["url"],
        PropValue::from("file:///srv/logo.png")
    );

    let mut txn = d.transact_mut();
    // A rewrite keeps the links the block holds, as markdown reads them.
    let markdown = inline_markdown(&document.blocks[0]);
    assert_eq!(
        markdown,
        "[call](tel:+33123456789) or [run](javascript:alert%281%29)"
    );
    set_block_text(&mut txn, &f, &para, &markdown.replace(" or ", ", or ")).unwrap();
    // It adds no other.
    assert_eq!(
        set_block_text(&mut txn, &f, &para, "[call](tel:+33000000000)"),
        Err(unsafe_url(
            "the link target",
            "tel:+33000000000",
            scheme("tel")
        ))
    );
    // The media URL the block has may be given again; another is checked.
    let same = p(&[
        ("url", "file:///srv/logo.png".into()),
        ("caption", "Logo".into()),
    ]);
    update_block(&mut txn, &f, &image, None, &same).unwrap();
    assert_eq!(
        update_block(
            &mut txn,
            &f,
            &image,
            None,
            &p(&[("url", "file:///srv/other.png".into())])
        ),
        Err(unsafe_url(
            "prop `url` of `image`",
            "file:///srv/other.png",
            scheme("file")
        ))
    );
    // A change of type keeps the URL it holds.
    update_block(&mut txn, &f, &image, Some("video"), &Props::new()).unwrap();
    update_block(
        &mut txn,
        &f,
        &image,
        None,
        &p(&[("url", "https://example.org/v.mp4".into())]),
    )
    .unwrap();
    // What was read goes back as it was (an undo).
    set_block_content(&mut txn, &f, &para, &NewContent::Markdown("plain".into())).unwrap();
    let old = NewContent::Inline(document.blocks[0].inline().unwrap().to_vec());
    assert_eq!(
        set_block_content(&mut txn, &f, &para, &old),
        Err(unsafe_url(
            "the link target",
            "tel:+33123456789",
            scheme("tel")
        ))
    );
    set_block_content_in(&mut txn, &f, &para, &old, as_read).unwrap();
    let back = p(&[("url", "file:///srv/logo.png".into())]);
    update_block_in(&mut txn, &f, &image, Some("image"), &back, as_read).unwrap();
    drop(txn);
    let now = read(&d, &f);
    assert_eq!(now.blocks[0].inline(), document.blocks[0].inline());
    assert_eq!(
        (now.blocks[1].kind.as_str(), &now.blocks[1].props["url"]),
        ("image", &PropValue::from("file:///srv/logo.png"))
    );
}
