//! A deterministic generator of realistic calendar vaults, shared by the
//! `gen_vault` and `bench_calendar` examples.
//!
//! The mix (per 100 notes): 45 timed single events, 12 all-day, 5 multi-day,
//! 10 weekly recurring, 8 rrule series (daily / weekly / monthly / yearly,
//! some with skipDates and time zones), 12 tasks (half done), and daily notes
//! (one per 12 notes, 3–6 items each). Dates spread over 2023–2026; every
//! note has a body of one to three short paragraphs.

use std::fs;
use std::io;
use std::path::Path;

/// xorshift64*: deterministic and good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: [&str; 24] = [
    "Team",
    "sync",
    "Review",
    "Dentist",
    "Lunch",
    "Budget",
    "Planning",
    "Call",
    "Ann",
    "Bob",
    "Design",
    "Standup",
    "Gym",
    "Report",
    "Taxes",
    "Garden",
    "Trip",
    "Workshop",
    "Offsite",
    "Interview",
    "Retro",
    "Demo",
    "Coffee",
    "Doctor",
];
const ZONES: [&str; 4] = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC"];
const PARAGRAPH: &str = "Agenda and notes for this meeting. Bring the numbers from last week, \
    check the open questions, and write down decisions with owners and dates.";

/// The day `offset` days after 2023-01-01, as `YYYY-MM-DD`.
pub fn day(offset: u64) -> String {
    let base = chrono::NaiveDate::from_ymd_opt(2023, 1, 1).unwrap();
    (base + chrono::Duration::days(offset as i64))
        .format("%Y-%m-%d")
        .to_string()
}

fn title(rng: &mut Rng, index: usize) -> String {
    format!("{} {} {index}", rng.pick(&WORDS), rng.pick(&WORDS))
}

fn time(rng: &mut Rng) -> (String, String) {
    let start = 7 * 60 + rng.below(11 * 4) * 15;
    let end = start + 15 * (1 + rng.below(8));
    let f = |m: u64| format!("{:02}:{:02}", (m / 60) % 24, m % 60);
    (f(start), f(end))
}

fn body(rng: &mut Rng) -> String {
    let mut text = String::from("\n# Notes\n\n");
    for _ in 0..=rng.below(3) {
        text.push_str(PARAGRAPH);
        text.push_str("\n\n");
    }
    text
}

/// The frontmatter of note `index`.
fn frontmatter(rng: &mut Rng, index: usize) -> String {
    let title = title(rng, index);
    let date = day(rng.below(4 * 365));
    let (start, end) = time(rng);
    let roll = rng.below(100);
    match roll {
        0..45 => format!(
            "title: {title}\nallDay: false\ndate: {date}\nstartTime: '{start}'\nendTime: '{end}'\ntags: [work]\n"
        ),
        45..57 => format!("title: {title}\nallDay: true\ndate: {date}\n"),
        57..62 => {
            let first = chrono::NaiveDate::parse_from_str(&date, "%Y-%m-%d").unwrap();
            let last = first + chrono::Duration::days(1 + rng.below(6) as i64);
            format!(
                "title: {title}\nallDay: true\ndate: {date}\nendDate: {}\n",
                last.format("%Y-%m-%d")
            )
        }
        62..72 => {
            let days = ["[M, W, F]", "[T, R]", "[M]", "[U, S]", "[F]"];
            format!(
                "title: {title}\ntype: recurring\ndaysOfWeek: {}\nstartRecur: {date}\nallDay: false\nstartTime: '{start}'\nendTime: '{end}'\n",
                rng.pick(&days)
            )
        }
        72..80 => {
            let rules = [
                "FREQ=DAILY",
                "FREQ=WEEKLY;BYDAY=MO,TH",
                "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU",
                "FREQ=MONTHLY;BYMONTHDAY=15",
                "FREQ=MONTHLY;BYDAY=1MO",
                "FREQ=YEARLY",
            ];
            format!(
                "title: {title}\ntype: rrule\nrrule: {}\nstartDate: {date}\nallDay: false\nstartTime: '{start}'\nendTime: '{end}'\ntimezone: {}\nskipDates: [{}]\n",
                rng.pick(&rules),
                rng.pick(&ZONES),
                day(rng.below(4 * 365))
            )
        }
        _ => {
            let completed = if rng.below(2) == 0 {
                "false".to_string()
            } else {
                format!("{date}T18:00:00")
            };
            format!("title: {title}\nallDay: true\ndate: {date}\ncompleted: {completed}\n")
        }
    }
}

/// Writes a vault of `notes` notes under `dir` (`events/` and `journal/`).
pub fn generate(dir: &Path, notes: usize) -> io::Result<()> {
    let events = dir.join("events");
    let journal = dir.join("journal");
    fs::create_dir_all(&events)?;
    fs::create_dir_all(&journal)?;
    let mut rng = Rng::new(0x5eed_0fa1_3a11_ac00);
    let daily_notes = notes / 12;
    for index in 0..notes - daily_notes {
        let text = format!(
            "---\n{}---\n{}",
            frontmatter(&mut rng, index),
            body(&mut rng)
        );
        // Spread over subfolders like a real vault (and keep folders small).
        let folder = events.join(format!("{:03}", index % 100));
        if index < 100 {
            fs::create_dir_all(&folder)?;
        }
        fs::write(folder.join(format!("note {index}.md")), text)?;
    }
    for index in 0..daily_notes {
        let mut text = format!(
            "# {}\n\nSome journal text.\n\n## Events\n",
            day(index as u64)
        );
        for item in 0..3 + rng.below(4) {
            let (start, end) = time(&mut rng);
            let checkbox = ["", "[ ] ", "[x] "][rng.below(3) as usize];
            text.push_str(&format!(
                "- {checkbox}{} [startTime:: {start}] [endTime:: {end}]\n",
                title(&mut rng, item as usize)
            ));
        }
        text.push_str("\n## Log\n- not an event\n");
        fs::write(journal.join(format!("{}.md", day(index as u64))), text)?;
    }
    Ok(())
}
