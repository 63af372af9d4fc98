//! `timeFormat24h`'s default: the clock of the system's locale. The locale
//! that formats times is the first of `LC_ALL`, `LC_TIME` and `LANG` that is
//! set (POSIX's order); its country says which clock people there read
//! (the regions whose preferred hour is `h`, 1–12, in CLDR's time data).
//! A locale naming no country (`C`, `POSIX`, none) keeps the 12-hour clock
//! of the windows' English, as a plain `en` does; another language without
//! a country reads 24 hours, as most of the world does.

/// Countries (ISO 3166) whose locales write times on a 12-hour clock.
const TWELVE_HOUR_REGIONS: [&str; 16] = [
    "US", "CA", "AU", "NZ", "IN", "PH", "PK", "BD", "EG", "SA", "AE", "JO", "KR", "TW", "MY", "CO",
];

/// Whether the system's locale writes times on a 24-hour clock.
pub fn system_uses_24h() -> bool {
    let locale = ["LC_ALL", "LC_TIME", "LANG"]
        .into_iter()
        .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()));
    uses_24h(locale.as_deref())
}

/// Whether `locale` (`de_DE.UTF-8`, `en_US`, `fr-CA`, `C`) writes times on
/// a 24-hour clock.
pub fn uses_24h(locale: Option<&str>) -> bool {
    let name = locale.unwrap_or("").split(['.', '@']).next().unwrap_or("");
    let mut parts = name.split(['_', '-']);
    let language = parts.next().unwrap_or("").to_ascii_lowercase();
    let region = parts.next().map(str::to_ascii_uppercase);
    match (language.as_str(), region.as_deref()) {
        ("" | "c" | "posix", _) | ("en", None) => false,
        // French Canada reads 24 hours, English Canada 12.
        ("fr", Some("CA")) => true,
        (_, Some(region)) => !TWELVE_HOUR_REGIONS.contains(&region),
        (_, None) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::uses_24h;

    #[test]
    fn the_locales_country_picks_the_clock() {
        for (locale, expected) in [
            (Some("de_DE.UTF-8"), true),
            (Some("en_GB.UTF-8"), true),
            (Some("fr_FR@euro"), true),
            (Some("fr_CA.UTF-8"), true),
            (Some("nb"), true),
            (Some("en_US.UTF-8"), false),
            (Some("en-AU"), false),
            (Some("en_CA"), false),
            (Some("ko_KR.UTF-8"), false),
            (Some("en"), false),
            (Some("C.UTF-8"), false),
            (Some("POSIX"), false),
            (None, false),
        ] {
            assert_eq!(uses_24h(locale), expected, "{locale:?}");
        }
    }
}
