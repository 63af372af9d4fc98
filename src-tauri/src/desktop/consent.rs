//! The consent dialog behind `request_access`: a small window asks the user,
//! and the waiting caller gets the answer. A window closed without an answer,
//! or left unanswered for [`ANSWER_TIMEOUT`], declines. The core asks one
//! request at a time (rate-limited), so there is never more than one dialog;
//! what the dialog shows comes from `AccessRequest::shown`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use almanac_core::api::{AccessRequest, Consent, ConsentPrompt};
use tauri::{AppHandle, Manager, WebviewUrl, WebviewWindowBuilder, WindowEvent};

/// How long a request waits for the user before it is declined.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Open consent dialogs by request id.
type Pending = Arc<Mutex<HashMap<u64, (AccessRequest, mpsc::Sender<Consent>)>>>;

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

    /// The request the dialog `id` shows.
    pub fn request(&self, id: u64) -> Option<AccessRequest> {
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.get(&id).map(|(request, _)| request.clone())
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
        if let Some(window) = self.app.get_webview_window(&label(id)) {
            let _ = window.close();
        }
        let _ = answered.1.send(consent);
        Ok(())
    }

    fn open_dialog(&self, id: u64) -> tauri::Result<()> {
        let page = format!("consent.html?request={id}");
        let window = WebviewWindowBuilder::new(&self.app, label(id), WebviewUrl::App(page.into()))
            .title("Almanac — Allow access?")
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

fn label(id: u64) -> String {
    format!("consent-{id}")
}

impl ConsentPrompt for ConsentDialogs {
    /// Blocks the calling thread until the user answers; never call it on
    /// the main (GUI) thread.
    fn ask(&self, request: &AccessRequest) -> Consent {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, (request.clone(), tx));
        if let Err(error) = self.open_dialog(id) {
            tracing::error!("could not open the consent dialog: {error}");
            let _ = self.answer(id, Consent::Declined);
        }
        let consent = rx.recv_timeout(ANSWER_TIMEOUT).unwrap_or(Consent::Declined);
        // A timed-out dialog is closed too.
        let _ = self.answer(id, Consent::Declined);
        consent
    }
}
