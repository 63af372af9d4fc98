//! `almanac --new-feed / --list-feeds / --revoke-feed`: the subscription
//! feeds of the CalDAV server (`almanac_core::caldav_server::feeds`), managed from
//! the command line. The running app reads the feeds file on every request,
//! so a change applies to it at once.

use almanac_core::caldav_server::feeds::{FeedStore, feed_url};
use almanac_core::paths::Paths;
use almanac_core::settings::SettingsStore;

use crate::cli::FeedCommand;

pub fn run(command: &FeedCommand) -> Result<(), String> {
    let paths = Paths::platform();
    let store = FeedStore::new(paths.feeds_file());
    match command {
        FeedCommand::New { name, calendars } => {
            let settings = SettingsStore::open(&paths.settings_file())
                .map_err(|e| e.to_string())?
                .get();
            let made = store
                .create_of(&settings, name, calendars.clone())
                .map_err(|e| e.to_string())?;
            println!("Feed {} ({})", made.feed.name, made.feed.id);
            println!("{}", feed_url(&settings, &made.secret));
            println!("This URL is shown once; anyone who has it can read these calendars.");
            if !settings.caldav_server.enabled {
                println!("The CalDAV server is off: turn it on in Settings to serve the feed.");
            }
        }
        FeedCommand::List => {
            for feed in store.list().map_err(|e| e.to_string())? {
                println!(
                    "{}  {}  [{}]  created {}",
                    feed.id,
                    feed.name,
                    feed.calendars.join(", "),
                    feed.created
                );
            }
        }
        FeedCommand::Revoke(id) => {
            let id = id
                .parse()
                .map_err(|_| format!("`{id}` is not a feed id (see --list-feeds)"))?;
            store.revoke(id).map_err(|e| e.to_string())?;
            println!("Feed {id} revoked: its URL no longer works.");
        }
    }
    Ok(())
}
