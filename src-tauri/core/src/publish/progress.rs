//! How far the pass running now has got sending the vault's changes to the
//! server, so a first publish of a thousand notes shows "Sending 120 of
//! 1000…" rather than nothing for a minute. The pass says how many it has
//! to send once it compared both sides; each `PUT` or `DELETE` the server
//! took counts one.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The counter of one running pass, shared between the pass and whoever
/// reports on it.
#[derive(Debug, Default)]
pub struct Sending {
    sent: AtomicUsize,
    total: AtomicUsize,
}

/// A pass' progress: `sent` of the `total` vault changes it has to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Progress {
    pub sent: usize,
    pub total: usize,
}

impl Sending {
    /// The pass has `total` changes to send.
    pub fn expect(&self, total: usize) {
        self.sent.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    /// The server took one more.
    pub fn sent_one(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    /// The progress so far; `None` while there is nothing to send.
    pub fn progress(&self) -> Option<Progress> {
        let total = self.total.load(Ordering::Relaxed);
        (total > 0).then(|| Progress {
            sent: self.sent.load(Ordering::Relaxed).min(total),
            total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_up_to_the_total() {
        let sending = Sending::default();
        assert_eq!(sending.progress(), None);
        sending.expect(2);
        sending.sent_one();
        assert_eq!(sending.progress(), Some(Progress { sent: 1, total: 2 }));
        sending.sent_one();
        sending.sent_one();
        assert_eq!(sending.progress(), Some(Progress { sent: 2, total: 2 }));
    }
}
