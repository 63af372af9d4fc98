//! How the process's allocator returns large buffers to the system.
//!
//! An answer of a year's listing is megabytes (an MCP `list_events` of a
//! large vault is 7 MB, built and serialized on several threads at once).
//! glibc serves such a buffer by `mmap` and gives it back on `free`, but
//! after the first such `free` it raises its threshold to that buffer's size
//! ("dynamic mmap threshold"), so every later one comes from the heaps of
//! the threads' arenas, which keep freed memory: under a flood of large
//! answers the resident size grew by 300 MB and stayed there after the flood
//! (BENCHMARKS.md, "Under one token's flood"). A fixed threshold keeps large
//! buffers on `mmap`, returned as soon as they are freed; small allocations,
//! nearly all of them, are unchanged.

/// Buffers at least this large are mapped on their own and given back when
/// freed (glibc's starting value; fixing it stops it from growing).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: i32 = 128 * 1024;

/// Fixes the allocator's large-buffer threshold. Call once, first thing in
/// `main`, before threads start. Does nothing but on glibc.
pub fn return_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` takes two integers and changes the allocator's
    // settings; called before other threads allocate.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}
