//! Retries that cannot duplicate: a create sent with an idempotency key
//! (REST's `Idempotency-Key` header, MCP's `idempotencyKey` argument) runs
//! once; the same key from the same token within [`KEPT_FOR`] answers what
//! the first did and creates nothing.
//!
//! An assistant or a script whose answer got lost (a timeout, a dropped
//! connection) cannot tell whether its create happened, so it sends it
//! again; without a key that is a second note. With one:
//! - the first request runs; a retry that arrives while it still runs waits
//!   for it and gets its answer;
//! - a retry after it succeeded gets the same answer, and nothing is written;
//! - a first request that failed is not remembered: the retry runs afresh;
//! - the same key with a different request is refused (`422`), since it
//!   cannot mean "the same again".
//!
//! Keys belong to a token (another token's same key is another key) and are
//! kept in memory: a restart forgets them. Bounded per token and in all, the
//! oldest answers dropped first.

use std::any::Any;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use uuid::Uuid;

use super::ApiError;

/// How long an answer is kept for retries.
pub const KEPT_FOR: Duration = Duration::from_secs(24 * 3600);
/// Answers kept per token; past it its oldest is dropped.
pub const MAX_PER_TOKEN: usize = 1_000;
/// Answers kept for all tokens together.
pub const MAX_IN_ALL: usize = 10_000;
/// The longest key, in bytes.
pub const MAX_KEY_BYTES: usize = 255;

/// A client's idempotency key: 1 to 255 visible ASCII characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The key `text`, or why it is not one (for a 400 naming `field`).
    pub fn parse(text: &str, field: &str) -> Result<IdempotencyKey, ApiError> {
        let fits = !text.is_empty()
            && text.len() <= MAX_KEY_BYTES
            && text.bytes().all(|b| b.is_ascii_graphic());
        if fits {
            Ok(IdempotencyKey(text.to_string()))
        } else {
            Err(ApiError::BadRequest {
                field: field.to_string(),
                reason: format!(
                    "an idempotency key is 1 to {MAX_KEY_BYTES} visible ASCII characters \
                     (a UUID is a good one)"
                ),
            })
        }
    }
}

type Answer = Arc<dyn Any + Send + Sync>;

/// One key's request: running, or done with its answer.
struct Entry {
    request: u64,
    at: Instant,
    state: Arc<Slot>,
}

/// Where a running request leaves its answer for those waiting on it.
#[derive(Default)]
struct Slot {
    done: Mutex<Option<Result<Answer, ()>>>,
    finished: Condvar,
}

/// The keys seen, by token and key.
#[derive(Default)]
pub struct IdempotencyKeys {
    entries: Mutex<HashMap<(Uuid, IdempotencyKey), Entry>>,
}

impl IdempotencyKeys {
    /// Runs `create` once for `token`'s `key`: `request` describes what is
    /// asked (its operation and arguments), so a reuse for something else
    /// is told apart. Blocks while the same key's first request runs.
    pub fn once<T, F>(
        &self,
        token: Uuid,
        key: &IdempotencyKey,
        request: impl Hash,
        create: F,
    ) -> Result<T, ApiError>
    where
        T: Clone + Send + Sync + 'static,
        F: FnOnce() -> Result<T, ApiError>,
    {
        let request = fingerprint(request);
        let id = (token, key.clone());
        let slot = {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            forget_old(&mut entries);
            match entries.get(&id) {
                Some(entry) if entry.request != request => {
                    return Err(ApiError::KeyReused(
                        "this idempotency key was sent before with a different request; \
                         use a new key for a new request"
                            .into(),
                    ));
                }
                Some(entry) => Some(entry.state.clone()),
                None => {
                    make_room(&mut entries, token);
                    let state = Arc::new(Slot::default());
                    let at = Instant::now();
                    entries.insert(id.clone(), Entry { request, at, state });
                    None
                }
            }
        };
        match slot {
            Some(slot) => self.answer_of(&slot, &id, request, create),
            None => self.run(&id, create),
        }
    }

    /// Runs the first request with `id` and leaves its answer.
    fn run<T, F>(&self, id: &(Uuid, IdempotencyKey), create: F) -> Result<T, ApiError>
    where
        T: Clone + Send + Sync + 'static,
        F: FnOnce() -> Result<T, ApiError>,
    {
        let outcome = create();
        let slot = {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            let slot = entries.get(id).map(|entry| entry.state.clone());
            // A failure is not an answer to keep: the retry runs afresh.
            if outcome.is_err() {
                entries.remove(id);
            }
            slot
        };
        if let Some(slot) = slot {
            let kept = match &outcome {
                Ok(value) => Ok(Arc::new(value.clone()) as Answer),
                Err(_) => Err(()),
            };
            *slot.done.lock().unwrap_or_else(|p| p.into_inner()) = Some(kept);
            slot.finished.notify_all();
        }
        outcome
    }

    /// The answer of the request that came first with `id`, waiting for it
    /// while it runs; if it failed, this one runs instead.
    fn answer_of<T, F>(
        &self,
        slot: &Slot,
        id: &(Uuid, IdempotencyKey),
        request: u64,
        create: F,
    ) -> Result<T, ApiError>
    where
        T: Clone + Send + Sync + 'static,
        F: FnOnce() -> Result<T, ApiError>,
    {
        let mut done = slot.done.lock().unwrap_or_else(|p| p.into_inner());
        while done.is_none() {
            done = slot.finished.wait(done).unwrap_or_else(|p| p.into_inner());
        }
        match done.as_ref() {
            Some(Ok(answer)) => answer.downcast_ref::<T>().cloned().ok_or_else(|| {
                // The same request is the same operation, so the same type.
                ApiError::KeyReused("this idempotency key was used for another operation".into())
            }),
            _ => {
                drop(done);
                // The first failed and is forgotten: go again, as a first.
                let (token, key) = id;
                self.once(*token, key, request, create)
            }
        }
    }
}

/// Drops the answers older than [`KEPT_FOR`].
fn forget_old(entries: &mut HashMap<(Uuid, IdempotencyKey), Entry>) {
    entries.retain(|_, entry| entry.at.elapsed() < KEPT_FOR || is_running(entry));
}

/// Keeps `token` under [`MAX_PER_TOKEN`] and everyone under
/// [`MAX_IN_ALL`] before one more is added, dropping the oldest answers
/// (never a request still running: its retries wait on it).
fn make_room(entries: &mut HashMap<(Uuid, IdempotencyKey), Entry>, token: Uuid) {
    let mine = entries.keys().filter(|(owner, _)| *owner == token).count();
    if mine >= MAX_PER_TOKEN {
        drop_oldest(entries, |owner| owner == token);
    }
    if entries.len() >= MAX_IN_ALL {
        drop_oldest(entries, |_| true);
    }
}

fn drop_oldest(entries: &mut HashMap<(Uuid, IdempotencyKey), Entry>, whose: impl Fn(Uuid) -> bool) {
    let oldest = entries
        .iter()
        .filter(|((owner, _), entry)| whose(*owner) && !is_running(entry))
        .min_by_key(|(_, entry)| entry.at)
        .map(|(id, _)| id.clone());
    if let Some(oldest) = oldest {
        entries.remove(&oldest);
    }
}

fn is_running(entry: &Entry) -> bool {
    entry
        .state
        .done
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .is_none()
}

/// `request` reduced to a number, to compare with a retry's.
fn fingerprint(request: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    request.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn key(text: &str) -> IdempotencyKey {
        IdempotencyKey::parse(text, "Idempotency-Key").unwrap()
    }

    #[test]
    fn a_retry_gets_the_first_answer_and_runs_nothing() {
        let keys = IdempotencyKeys::default();
        let runs = AtomicUsize::new(0);
        let create = || Ok::<_, ApiError>(format!("note {}", runs.fetch_add(1, Ordering::SeqCst)));
        let token = Uuid::from_u128(1);
        let first = keys
            .once(token, &key("k1"), ("create", "Lunch"), create)
            .unwrap();
        let again = keys
            .once(token, &key("k1"), ("create", "Lunch"), create)
            .unwrap();
        assert_eq!((first.as_str(), again.as_str()), ("note 0", "note 0"));
        // Another token's same key is another key.
        let theirs = keys.once(Uuid::from_u128(2), &key("k1"), ("create", "Lunch"), create);
        assert_eq!(theirs.unwrap(), "note 1");
        let reused = keys.once(token, &key("k1"), ("create", "Dinner"), create);
        assert!(matches!(reused, Err(ApiError::KeyReused(_))), "{reused:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_failure_is_not_kept_and_a_retry_while_running_waits_for_the_answer() {
        let keys = Arc::new(IdempotencyKeys::default());
        let token = Uuid::nil();
        let failed = keys.once(token, &key("k"), 1, || {
            Err::<String, _>(ApiError::Conflict("taken".into()))
        });
        assert!(failed.is_err());
        let (started, release) = (
            Arc::new(std::sync::Barrier::new(2)),
            Arc::new(std::sync::Barrier::new(2)),
        );
        let first = std::thread::spawn({
            let (keys, started, release) = (keys.clone(), started.clone(), release.clone());
            move || {
                keys.once(token, &key("k"), 1, || {
                    started.wait();
                    release.wait();
                    Ok("made".to_string())
                })
            }
        });
        started.wait();
        let retry = std::thread::spawn({
            let keys = keys.clone();
            move || keys.once(token, &key("k"), 1, || Ok("made twice".to_string()))
        });
        release.wait();
        assert_eq!(first.join().unwrap().unwrap(), "made");
        assert_eq!(retry.join().unwrap().unwrap(), "made");
    }

    #[test]
    fn keys_are_visible_ascii_and_bounded() {
        assert!(IdempotencyKey::parse("", "k").is_err());
        assert!(IdempotencyKey::parse("has space", "k").is_err());
        assert!(IdempotencyKey::parse("é", "k").is_err());
        assert!(IdempotencyKey::parse(&"a".repeat(256), "k").is_err());
        assert!(IdempotencyKey::parse(&"a".repeat(255), "k").is_ok());
    }

    #[test]
    fn a_token_keeps_at_most_its_share_of_answers() {
        let keys = IdempotencyKeys::default();
        let token = Uuid::from_u128(7);
        for n in 0..MAX_PER_TOKEN + 5 {
            keys.once(token, &key(&format!("k{n}")), n, || Ok(n))
                .unwrap();
        }
        let kept = keys.entries.lock().unwrap().len();
        assert_eq!(kept, MAX_PER_TOKEN);
    }
}
