//! Feed URLs (and the reminder hook's command) as shown to a token without
//! `system:full-access`.
//!
//! Private calendar links carry their secret in the URL: in the userinfo
//! (`https://user:pass@host/…`), the query (`?token=…`), or, with most
//! providers (Google's `…/private-<key>/basic.ics`, iCloud's
//! `…/published/2/<key>`), the path. A script that may list calendars or read
//! settings has no business holding that secret, so every part after the
//! host is replaced by `***`: `https://***@calendar.example.com:8443/***?***`.
//! Scheme, host and port stay, so the feed can still be told apart.

use url::Url;

use super::Settings;

/// What is shown in place of a hidden part.
pub const HIDDEN: &str = "***";

/// `url` with its userinfo, path, query and fragment hidden. A URL that
/// cannot be parsed is hidden whole.
pub fn redact_feed_url(url: &str) -> String {
    let Ok(parsed) = Url::parse(url) else {
        return HIDDEN.to_string();
    };
    let Some(host) = parsed.host_str() else {
        return HIDDEN.to_string();
    };
    let mut shown = format!("{}://", parsed.scheme());
    if !parsed.username().is_empty() || parsed.password().is_some() {
        shown.push_str(HIDDEN);
        shown.push('@');
    }
    shown.push_str(host);
    if let Some(port) = parsed.port() {
        shown.push_str(&format!(":{port}"));
    }
    shown.push('/');
    if parsed.path() != "/" {
        shown.push_str(HIDDEN);
    }
    if parsed.query().is_some() {
        shown.push('?');
        shown.push_str(HIDDEN);
    }
    if parsed.fragment().is_some() {
        shown.push('#');
        shown.push_str(HIDDEN);
    }
    shown
}

impl Settings {
    /// These settings as a token below the user sees them: every feed URL
    /// passed through [`redact_feed_url`], and the reminder hook's command
    /// shown only as set (`***`): a command line can carry a secret (an API
    /// key, a webhook address), and says what runs on the user's machine.
    pub fn with_secrets_hidden(&self) -> Settings {
        let mut shown = self.clone();
        for source in &mut shown.calendar_sources {
            if let Some(url) = source.kind.secret_url_mut() {
                *url = redact_feed_url(url);
            }
        }
        if let Some(command) = &mut shown.reminders.hook_command {
            *command = HIDDEN.to_string();
        }
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_command_is_shown_only_as_set() {
        let mut settings = Settings::default();
        assert_eq!(settings.with_secrets_hidden().reminders.hook_command, None);
        settings.reminders.hook_command = Some("curl -H 'key: s3cret' https://example.com".into());
        let shown = settings.with_secrets_hidden();
        assert_eq!(shown.reminders.hook_command.as_deref(), Some(HIDDEN));
        assert!(!serde_json::to_string(&shown).unwrap().contains("s3cret"));
    }

    #[test]
    fn secrets_in_every_part_are_hidden() {
        for (url, shown) in [
            (
                "https://alice:s3cret@cal.example.com/private-abc/basic.ics?token=xyz#frag",
                "https://***@cal.example.com/***?***#***",
            ),
            (
                "https://bob@cal.example.com:8443/",
                "https://***@cal.example.com:8443/",
            ),
            ("http://cal.example.com", "http://cal.example.com/"),
            ("http://[::1]:9/a.ics?k=v", "http://[::1]:9/***?***"),
            ("not a url", "***"),
        ] {
            assert_eq!(redact_feed_url(url), shown, "{url}");
        }
    }
}
