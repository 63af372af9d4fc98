//! The holiday data Almanac ships: public holidays of many countries and
//! their subdivisions, generated from python-holidays (MIT licence, see
//! `LICENSE-python-holidays` beside this file) by
//! `scripts/holidays-data.py`, which also documents the format. It is
//! compiled into the binary and never fetched.

use std::io::Read;
use std::sync::OnceLock;

use chrono::NaiveDate;

/// The gzipped data (about 250 KB; 1.4 MB as text).
const DATA: &[u8] = include_bytes!("holidays.txt.gz");

/// One public holiday.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Holiday {
    pub date: NaiveDate,
    pub name: String,
}

/// A country or subdivision the data knows, by code and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub code: String,
    pub name: String,
}

/// The data as text, decompressed once.
fn text() -> Result<&'static str, String> {
    static TEXT: OnceLock<Result<String, String>> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = String::new();
        flate2::read::GzDecoder::new(DATA)
            .read_to_string(&mut text)
            .map_err(|e| format!("the holiday data cannot be read: {e}"))?;
        Ok(text)
    })
    .as_deref()
    .map_err(Clone::clone)
}

/// The lines of one country, after its `=` line.
fn country_lines(country: &str) -> Result<impl Iterator<Item = &'static str>, String> {
    let text = text()?;
    let header = format!("={country}\t");
    let start = text
        .split('\n')
        .position(|line| line.starts_with(&header))
        .ok_or_else(|| {
            format!("no holiday data for the country `{country}` (an ISO 3166 code such as `DE`)")
        })?;
    Ok(text
        .split('\n')
        .skip(start + 1)
        .take_while(|line| !line.starts_with('=')))
}

/// Every country of the data, by code.
pub fn countries() -> Result<Vec<Place>, String> {
    Ok(text()?
        .split('\n')
        .filter_map(|line| line.strip_prefix('='))
        .filter_map(place)
        .collect())
}

/// The subdivisions of `country` the data knows.
pub fn subdivisions(country: &str) -> Result<Vec<Place>, String> {
    Ok(country_lines(country)?
        .filter_map(|line| line.strip_prefix('+'))
        .filter_map(place)
        .collect())
}

fn place(line: &str) -> Option<Place> {
    let (code, name) = line.split_once('\t')?;
    Some(Place {
        code: code.to_string(),
        name: name.to_string(),
    })
}

/// The public holidays of `country` (ISO 3166-1 alpha-2, any case), or of
/// its `subdivision` (which has the country's, less the ones it does not
/// keep, and its own), sorted by date.
pub fn holidays(country: &str, subdivision: Option<&str>) -> Result<Vec<Holiday>, String> {
    let country = country.trim().to_ascii_uppercase();
    let subdivision = subdivision
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_ascii_uppercase);
    let mut national = Vec::new();
    let mut added = Vec::new();
    let mut removed = Vec::new();
    let mut found = subdivision.is_none();
    let mut current: Option<&str> = None;
    for line in country_lines(&country)? {
        if let Some(rest) = line.strip_prefix('+') {
            current = rest.split('\t').next();
            found |= current.is_some_and(|code| Some(code.to_ascii_uppercase()) == subdivision);
            continue;
        }
        let (removal, line) = match line.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let Some((name, dates)) = line.split_once('\t') else {
            continue;
        };
        let target = match current {
            None => &mut national,
            Some(code) if Some(code.to_ascii_uppercase()) == subdivision => {
                if removal {
                    &mut removed
                } else {
                    &mut added
                }
            }
            Some(_) => continue,
        };
        for date in dates.split(' ').flat_map(expand) {
            target.push(Holiday {
                date,
                name: name.to_string(),
            });
        }
    }
    if !found {
        let known: Vec<String> = subdivisions(&country)?
            .into_iter()
            .map(|place| place.code)
            .collect();
        return Err(format!(
            "no holiday data for the subdivision `{}` of `{country}`{}",
            subdivision.unwrap_or_default(),
            match known.is_empty() {
                true => " (the data has none for this country)".to_string(),
                false => format!(" (known: {})", known.join(", ")),
            }
        ));
    }
    national.retain(|holiday| !removed.contains(holiday));
    national.extend(added);
    national.sort();
    national.dedup();
    Ok(national)
}

/// The days of one `YYYY:MMDD` or `YYYY-YYYY:MMDD` token; none for a
/// token that does not read.
fn expand(token: &str) -> Vec<NaiveDate> {
    let Some((years, month_day)) = token.split_once(':') else {
        return vec![];
    };
    let (first, last) = years.split_once('-').unwrap_or((years, years));
    let (Ok(first), Ok(last)) = (first.parse::<i32>(), last.parse::<i32>()) else {
        return vec![];
    };
    let (Some(month), Some(day)) = (
        month_day.get(..2).and_then(|m| m.parse().ok()),
        month_day.get(2..).and_then(|d| d.parse().ok()),
    ) else {
        return vec![];
    };
    (first..=last.min(first + 200))
        .filter_map(|year| NaiveDate::from_ymd_opt(year, month, day))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn names_on(holidays: &[Holiday], date: NaiveDate) -> Vec<&str> {
        holidays
            .iter()
            .filter(|h| h.date == date)
            .map(|h| h.name.as_str())
            .collect()
    }

    #[test]
    fn a_country_has_its_fixed_and_movable_holidays() {
        let de = holidays("de", None).unwrap();
        assert_eq!(names_on(&de, day(2026, 12, 25)), ["Christmas Day"]);
        assert_eq!(names_on(&de, day(2026, 4, 6)), ["Easter Monday"]);
        assert_eq!(names_on(&de, day(2026, 10, 3)), ["German Unity Day"]);
        // Epiphany is kept in Bavaria, not in the whole country.
        assert!(names_on(&de, day(2026, 1, 6)).is_empty());
        assert!(de.windows(2).all(|w| w[0] <= w[1]), "sorted by date");
    }

    #[test]
    fn a_subdivision_adds_its_own() {
        let by = holidays("DE", Some("by")).unwrap();
        assert_eq!(names_on(&by, day(2026, 1, 6)), ["Epiphany"]);
        assert_eq!(names_on(&by, day(2026, 12, 25)), ["Christmas Day"]);
        let us_ca = holidays("US", Some("CA")).unwrap();
        assert_eq!(names_on(&us_ca, day(2026, 3, 31)), ["Cesar Chavez Day"]);
    }

    #[test]
    fn unknown_places_are_named_in_the_error() {
        let error = holidays("XX", None).unwrap_err();
        assert!(error.contains("`XX`"), "{error}");
        let error = holidays("DE", Some("ZZ")).unwrap_err();
        assert!(error.contains("`ZZ`") && error.contains("BY"), "{error}");
    }

    #[test]
    fn countries_and_subdivisions_are_listed() {
        let countries = countries().unwrap();
        assert!(countries.len() > 100, "{}", countries.len());
        assert!(
            countries
                .iter()
                .any(|c| c.code == "FR" && c.name == "France")
        );
        let states = subdivisions("US").unwrap();
        assert!(states.iter().any(|s| s.code == "CA"));
    }

    #[test]
    fn tokens_expand_to_days() {
        assert_eq!(expand("2026:0406"), [day(2026, 4, 6)]);
        assert_eq!(
            expand("2024-2026:1225"),
            [day(2024, 12, 25), day(2025, 12, 25), day(2026, 12, 25)]
        );
        assert!(expand("2026:1340").is_empty());
        assert!(expand("garbage").is_empty());
    }
}
