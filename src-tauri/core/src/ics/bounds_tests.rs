use super::*;

const EVENT: &str = "BEGIN:VEVENT\r\nUID:a\r\nDTSTART:20250101T100000Z\r\nEND:VEVENT\r\n";

fn calendar(body: &str) -> String {
    format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{body}END:VCALENDAR\r\n")
}

/// An event with `levels` components nested in it (so `levels + 2` deep).
fn nested(levels: usize) -> String {
    let mut body = String::from("BEGIN:VEVENT\r\nUID:deep\r\n");
    body.push_str(&"BEGIN:X\r\n".repeat(levels));
    body.push_str(&"END:X\r\n".repeat(levels));
    body.push_str("END:VEVENT\r\n");
    body
}

fn strict(text: &str, limits: &Limits) -> Result<usize, IcsError> {
    let unfolded = unfold_bounded(text, limits)?;
    parse_bounded(&unfolded, limits).map(|c| c.components.len())
}

#[test]
fn the_crash_text_is_refused_without_recursion() {
    let text = format!("BEGIN:VCALENDAR\r\n{}", "BEGIN:X\r\n".repeat(100_000));
    let err = strict(&text, &Limits::RESOURCE).unwrap_err();
    assert_eq!(err, IcsError::TooDeep { max: 8, line: 9 });
    assert_eq!(
        err.to_string(),
        "iCalendar nesting deeper than 8 components at line 9"
    );
    // As a feed: past the components of a whole feed, refused whole.
    let unfolded = unfold_bounded(&text, &Limits::FEED).unwrap();
    assert_eq!(
        parse_items(&unfolded, &Limits::FEED).unwrap_err(),
        IcsError::TooManyComponents {
            max: 100_000,
            line: 100_001
        }
    );
    // Cut short of that, refused whole too: the text never ends.
    let unfolded = unfold_bounded(&text[..text.len() / 2], &Limits::FEED).unwrap();
    assert_eq!(
        parse_items(&unfolded, &Limits::FEED).unwrap_err(),
        IcsError::Unclosed {
            name: "X".into(),
            line: 2
        }
    );
}

#[test]
fn depth_eight_is_read_and_nine_is_not() {
    // VCALENDAR > VEVENT > 6 × X: eight levels.
    assert_eq!(strict(&calendar(&nested(6)), &Limits::RESOURCE), Ok(1));
    let err = strict(&calendar(&nested(7)), &Limits::RESOURCE).unwrap_err();
    assert_eq!(err, IcsError::TooDeep { max: 8, line: 11 });
}

#[test]
fn components_properties_lines_and_size_have_their_limits() {
    let limits = Limits {
        max_bytes: 10_000,
        max_depth: 8,
        max_components: 4,
        max_properties: 8,
        max_line_bytes: 60,
    };
    // VCALENDAR + 3 VEVENTs: 4 components, 2 + 3 × 2 = 8 properties.
    let three = calendar(&EVENT.replace("DTSTART:20250101T100000Z\r\n", "").repeat(3));
    assert_eq!(strict(&three, &limits), Ok(3));
    let four = calendar(&EVENT.replace("DTSTART:20250101T100000Z\r\n", "").repeat(4));
    assert!(matches!(
        strict(&four, &limits),
        Err(IcsError::TooManyComponents { max: 4, .. })
    ));
    // VERSION, UID and `n` more.
    let props = |n: usize| {
        calendar(&EVENT.replace("UID:a\r\n", &format!("UID:a\r\n{}", "X-A:1\r\n".repeat(n))))
    };
    assert_eq!(strict(&props(5), &limits), Ok(1));
    assert!(matches!(
        strict(&props(6), &limits),
        Err(IcsError::TooManyProperties { max: 8, .. })
    ));
    // Lines are measured unfolded.
    let line = |n: usize| calendar(&EVENT.replace("UID:a", &format!("UID:{}", "u".repeat(n))));
    assert_eq!(strict(&line(56), &limits), Ok(1));
    assert_eq!(
        strict(&line(57), &limits),
        Err(IcsError::LineTooLong { max: 60, line: 4 })
    );
    let folded = line(57).replace("uuuu", "uu\r\n uu");
    assert!(matches!(
        strict(&folded, &limits),
        Err(IcsError::LineTooLong { .. })
    ));
    let big = calendar(&format!("X-PAD:{}\r\n{EVENT}", "p".repeat(9_990)));
    let limits = Limits {
        max_line_bytes: 20_000,
        ..limits
    };
    assert_eq!(
        strict(&big, &limits),
        Err(IcsError::TooLarge { max: 10_000 })
    );
}

#[test]
fn unbalanced_text_gets_a_named_error() {
    let cases = [
        (
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
            "iCalendar END:VTODO at line 3 does not close BEGIN:VEVENT",
        ),
        (
            "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\nEND:VEVENT\r\n",
            "iCalendar END:VEVENT at line 3 closes no component",
        ),
        (
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\n",
            "iCalendar BEGIN:VEVENT at line 2 is never closed",
        ),
        (
            "<html>not a calendar</html>",
            "not iCalendar: no BEGIN:VCALENDAR",
        ),
    ];
    for (text, message) in cases {
        let err = strict(text, &Limits::RESOURCE).unwrap_err();
        assert_eq!(err.to_string(), message, "{text:?}");
    }
}

#[test]
fn one_bad_item_is_set_aside_and_the_others_read() {
    let text = calendar(&format!(
        "{EVENT}{}BEGIN:VEVENT\r\nUID:b\r\nEND:VTODO\r\n{}BEGIN:VEVENT\r\nthis is not iCalendar\r\nEND:VEVENT\r\n",
        nested(20),
        EVENT.replace("UID:a", "UID:c"),
    ));
    let unfolded = unfold_bounded(&text, &Limits::FEED).unwrap();
    let items = parse_items(&unfolded, &Limits::FEED).unwrap();
    let uids: Vec<&str> = items
        .components
        .iter()
        .filter_map(|c| c.find_prop("UID").map(|p| p.val.as_str()))
        .collect();
    assert_eq!(uids, ["a", "c"]);
    let errors: Vec<String> = items
        .set_aside
        .iter()
        .map(|s| s.error.to_string())
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].contains("nesting deeper than 8"), "{errors:?}");
    assert!(
        errors[1].contains("does not close BEGIN:VEVENT"),
        "{errors:?}"
    );
    assert!(errors[2].starts_with("not iCalendar"), "{errors:?}");
    assert_eq!(items.set_aside[0].name, "VEVENT");
    assert_eq!(items.set_aside[0].line, 7);
}

#[test]
fn limits_of_the_whole_text_refuse_all_of_it() {
    let limits = Limits {
        max_components: 3,
        ..Limits::FEED
    };
    let text = calendar(&EVENT.repeat(3));
    let unfolded = unfold_bounded(&text, &limits).unwrap();
    assert!(matches!(
        parse_items(&unfolded, &limits),
        Err(IcsError::TooManyComponents { max: 3, line: 11 })
    ));
}
