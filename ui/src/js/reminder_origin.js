// Where a reminder comes from, as the Reminders window and the sidebar show
// it. Vault reminders carry `source: "vault"` and the event they are for
// (`event: { id, title, path, start }`); a daemon from before vault reminders
// sends neither, and everything it holds was synced by a host (the note
// app's plugin).

/** `{ source: 'host' | 'vault', event: string | null }` of a daemon reminder. */
export function reminderOrigin(reminder) {
  return {
    source: reminder.source === 'vault' ? 'vault' : 'host',
    event: reminder.event?.title || null,
  };
}
