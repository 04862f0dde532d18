#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| masterctl_fuzz::xlsx_parts(data));
