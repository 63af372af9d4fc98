//! A stack overflow as a crash libFuzzer reports.
//!
//! The fuzz binaries have no Rust `main`, so Rust's runtime never installs
//! its stack-overflow handler, and libFuzzer's own `SIGSEGV` handler runs on
//! the overflowed stack: the process just dies, with no message and no
//! reproducer saved. This handler runs on a stack of its own (per thread)
//! and aborts, which libFuzzer reports as a deadly signal, saving the input.

use std::ptr::null_mut;
use std::sync::Once;

/// The signal stack of one thread.
const ALT_STACK_BYTES: usize = 256 * 1024;

/// Installs the handler (once per process) and this thread's signal stack.
/// Call it at the start of every input on the fuzzing thread (it is cheap
/// after the first time), and from the start of every runtime thread.
pub fn catch_overflow() {
    static HANDLER: Once = Once::new();
    thread_local!(static ALT_STACK: () = alt_stack());
    ALT_STACK.with(|_| ());
    HANDLER.call_once(|| unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fault as *const () as usize;
        action.sa_flags = libc::SA_ONSTACK | libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        for signal in [libc::SIGSEGV, libc::SIGBUS] {
            libc::sigaction(signal, &action, null_mut());
        }
    });
}

fn alt_stack() {
    // SAFETY: a fresh private mapping, given to the kernel as this thread's
    // signal stack and never unmapped (threads live as long as the process).
    unsafe {
        let stack = libc::mmap(
            null_mut(),
            ALT_STACK_BYTES,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(stack, libc::MAP_FAILED, "a signal stack");
        let stack = libc::stack_t {
            ss_sp: stack,
            ss_flags: 0,
            ss_size: ALT_STACK_BYTES,
        };
        libc::sigaltstack(&stack, null_mut());
    }
}

extern "C" fn on_fault(_: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
    const MESSAGE: &[u8] =
        b"\n==fuzz== SIGSEGV/SIGBUS: stack overflow (or a bad access); aborting\n";
    // SAFETY: write(2) and abort(3) are async-signal-safe.
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
        libc::abort();
    }
}
