#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| masterctl_fuzz::message(data));
