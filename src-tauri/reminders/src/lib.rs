//! Almanac's reminder daemon (spec section B). Filled in by the reminder-daemon issue.
