//! A zipped workbook (xlsx, xlsm, xlsb, ods) as the readers share it: its open archive
//! and the limits of its parts — a module of its own, so that the workbook readers
//! (`workbook`) and masterctl's xlsx reader (`xlsx`) depend on it, not on each other.

use std::fs::File;
use std::io::BufReader;

/// A zipped workbook, open.
pub(crate) type Archive = zip::ZipArchive<BufReader<File>>;

/// The most one part of a zipped workbook (a sheet's XML, the shared strings) may
/// unpack to, and all parts together. The zip reader never produces more than a part's
/// declared size, so checking the declared sizes first bounds what reading can take,
/// whatever the file claims to compress (a few megabytes of deflated spaces unpack to
/// gigabytes). 192 MiB of sheet XML is about eight million cells.
pub const MAX_PART_BYTES: u64 = 192 << 20;
pub const MAX_UNPACKED_BYTES: u64 = 320 << 20;
