//! The consent dialogs: behind `request_access` (page `consent.html`) and
//! behind an assistant's destructive write (`confirm.html`, see
//! `WriteConfirmation`). A small window asks the user, and the waiting caller
//! gets the answer. A window closed without an answer, or left unanswered for
//! [`ANSWER_TIMEOUT`], declines. The core asks one question at a time
//! (rate-limited), so there is never more than one dialog; what a dialog
//! shows comes from `AccessRequest::shown` / `WriteConfirmation::shown`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use almanac_core::api::{AccessRequest, Consent, ConsentPrompt, WriteConfirmation};
use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindowBuilder, WindowEvent};

/// How long a request waits for the user before it is declined.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// What a dialog asks.
#[derive(Clone)]
pub enum Question {
    Access(AccessRequest),
    Write(WriteConfirmation),
}

impl Question {
    fn page(&self) -> &'static str {
        match self {
            Question::Access(_) => "consent",
            Question::Write(_) => "confirm",
        }
    }

    fn title(&self) -> &'static str {
        match self {
            Question::Access(_) => "Almanac — Allow access?",
            Question::Write(_) => "Almanac — Allow this change?",
        }
    }
}

/// Open consent dialogs by request id. A write's Yes is delivered as
/// `Consent::Granted` (its expiry means nothing there).
type Pending = Arc<Mutex<HashMap<u64, (Question, mpsc::Sender<Consent>)>>>;

/// The [`ConsentPrompt`] of the desktop app. Also managed as Tauri state so
/// the dialog's commands reach the waiting requests.
#[derive(Clone)]
pub struct ConsentDialogs {
    app: AppHandle,
    pending: Pending,
    next_id: Arc<AtomicU64>,
}

impl ConsentDialogs {
    pub fn new(app: AppHandle) -> Self {
        Self {
            app,
            pending: Pending::default(),
            next_id: Arc::new(AtomicU64::new(1)),
        }
    }

    /// The question the dialog `id` shows.
    pub fn question(&self, id: u64) -> Option<Question> {
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.get(&id).map(|(question, _)| question.clone())
    }

    /// Closes the dialog and delivers the user's answer (in that order: the
    /// core shows the next queued request as soon as it has the answer).
    pub fn answer(&self, id: u64, consent: Consent) -> Result<(), String> {
        let answered = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id)
            .ok_or("this request was already answered or has expired")?;
        if let Some(window) = self.app.get_webview_window(&label(answered.0.page(), id)) {
            let _ = window.close();
        }
        let _ = answered.1.send(consent);
        Ok(())
    }

    fn open_dialog(&self, id: u64, question: &Question) -> tauri::Result<()> {
        let page = question.page();
        let url = WebviewUrl::App(format!("{page}.html?request={id}").into());
        let window = WebviewWindowBuilder::new(&self.app, label(page, id), url)
            .title(question.title())
            .inner_size(520.0, 520.0)
            .resizable(false)
            .always_on_top(true)
            .center()
            .build()?;
        let dialogs = self.clone();
        window.on_window_event(move |event| {
            if let WindowEvent::Destroyed = event {
                let _ = dialogs.answer(id, Consent::Declined);
            }
        });
        window.set_focus()
    }
}

fn label(page: &str, id: u64) -> String {
    format!("{page}-{id}")
}

impl ConsentPrompt for ConsentDialogs {
    /// Blocks the calling thread until the user answers; never call it on
    /// the main (GUI) thread.
    fn ask(&self, request: &AccessRequest) -> Consent {
        self.put(Question::Access(request.clone()))
    }

    /// The desktop app has a display: the dialog can always be shown.
    fn can_confirm_writes(&self) -> bool {
        true
    }

    /// Blocks like [`ConsentPrompt::ask`]; closing the dialog or letting it
    /// time out refuses.
    fn confirm_write(&self, confirmation: &WriteConfirmation) -> Option<bool> {
        let answer = self.put(Question::Write(confirmation.clone()));
        Some(matches!(answer, Consent::Granted { .. }))
    }
}

impl ConsentDialogs {
    /// Shows `question` and waits for the answer (declined on timeout).
    fn put(&self, question: Question) -> Consent {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, (question.clone(), tx));
        if let Err(error) = self.open_dialog(id, &question) {
            tracing::error!("could not open the consent dialog: {error}");
            let _ = self.answer(id, Consent::Declined);
        }
        let consent = rx.recv_timeout(ANSWER_TIMEOUT).unwrap_or(Consent::Declined);
        // A timed-out dialog is closed too.
        let _ = self.answer(id, Consent::Declined);
        consent
    }
}
