//! A sheet's XML read as it is unpacked, a piece at a time: about `piece_bytes` more are
//! unpacked, and the piece ends right after the last `</row>` among them that is markup
//! (not inside a comment, a CDATA section or a processing instruction); what follows is
//! carried to the next piece. Each piece is checked as UTF-8 where it lies, so that a
//! sheet of any size is never held whole — the part's rest after its data, too.

use std::io::Read;

use super::sheet::Place;

/// What is done with a piece: given its bytes, where it begins in the part and where
/// the reading is, it says where the reading is after it and whether to go on.
pub(super) type Each<'e> = dyn FnMut(&[u8], usize, Place) -> Result<(Place, bool), String> + 'e;

/// Read `reader`'s bytes (`size` of them, as the part declares) a piece at a time, each given to `each` with where it begins
/// in the part and where the reading is ([`Place`]); `each` gives back where the
/// reading is after it, and whether to go on. The part's end is checked ([`Place::end`]).
pub(super) fn read(
    reader: impl Read + Send,
    size: u64,
    piece_bytes: usize,
    each: &mut Each<'_>,
) -> Result<(), String> {
    if size <= piece_bytes as u64 || masterctl_runtime::parallel::workers() < 2 {
        return read_here(reader, size, piece_bytes, each);
    }
    // A part of several pieces is unpacked on a thread of its own while the one before
    // is read here (a sheet of 50,000 rows unpacks for 70 ms).
    std::thread::scope(|scope| {
        let (unpacked, taken) = std::sync::mpsc::sync_channel(AHEAD);
        let (given_back, back) = std::sync::mpsc::sync_channel(AHEAD + 1);
        scope.spawn(move || unpack(reader, &unpacked, &back));
        let ahead = Ahead {
            taken,
            given_back,
            chunk: Vec::new(),
            at: 0,
        };
        read_here(ahead, size, piece_bytes, each)
    })
}

/// How many chunks are unpacked ahead of the reading, at most (besides the one being
/// unpacked and the one being read).
const AHEAD: usize = 1;

/// The bytes of a chunk unpacked ahead.
const CHUNK: u64 = 1 << 19;

type Chunk = std::io::Result<Vec<u8>>;

/// `reader`'s bytes sent a chunk at a time until they end, fail, or are no longer
/// taken (the reading stopped); each into a chunk read before and given `back` when
/// there is one (the few chunks are made once).
fn unpack(
    mut reader: impl Read,
    unpacked: &std::sync::mpsc::SyncSender<Chunk>,
    back: &std::sync::mpsc::Receiver<Vec<u8>>,
) {
    loop {
        let mut chunk = back
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK as usize));
        chunk.clear();
        let read = (&mut reader).take(CHUNK).read_to_end(&mut chunk);
        let ended = !matches!(read, Ok(n) if n > 0);
        if matches!(read, Ok(0)) || unpacked.send(read.map(|_| chunk)).is_err() || ended {
            return;
        }
    }
}

/// The bytes another thread unpacks ([`unpack`]), read in turn; each chunk read is
/// given back to be unpacked into again.
struct Ahead {
    taken: std::sync::mpsc::Receiver<Chunk>,
    given_back: std::sync::mpsc::SyncSender<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for Ahead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.taken.recv() {
                Ok(chunk) => {
                    let read = std::mem::replace(&mut self.chunk, chunk?);
                    self.at = 0;
                    // Kept when none is wanted back: it is freed here.
                    let _ = self.given_back.try_send(read);
                }
                // Every chunk is taken: the part has ended.
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.chunk.len() - self.at);
        out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// [`read`], the part unpacked on this thread as it is read.
fn read_here(
    mut reader: impl Read,
    size: u64,
    piece_bytes: usize,
    each: &mut Each<'_>,
) -> Result<(), String> {
    // Room for a piece and what the one before carried (less than a piece), or for the
    // part as it declares itself when it is smaller.
    let room = usize::try_from(size.saturating_add(1)).unwrap_or(usize::MAX);
    let mut buffer: Vec<u8> = Vec::with_capacity(room.min(2 * piece_bytes));
    let mut place = Place::default();
    // Bytes of the part before `buffer`'s first.
    let mut offset = 0usize;
    let mut ended = false;
    loop {
        if !ended {
            let wanted = buffer.len() + piece_bytes;
            let read = (&mut reader)
                .take(piece_bytes as u64)
                .read_to_end(&mut buffer)
                .map_err(|e| format!("its XML cannot be unpacked: {e}"))?;
            ended = read == 0 || buffer.len() < wanted;
        }
        let cut = match (ended, piece_end(&buffer)) {
            (true, _) => buffer.len(),
            (false, Some(cut)) => cut,
            // No row ends here yet: more is unpacked into the same piece.
            (false, None) => continue,
        };
        let piece = &buffer[..cut];
        if simdutf8::basic::from_utf8(piece).is_err() {
            let valid = std::str::from_utf8(piece)
                .err()
                .map_or(0, |e| e.valid_up_to());
            return Err(format!("it is not UTF-8 at byte {}", offset + valid));
        }
        let go_on;
        (place, go_on) = each(piece, offset, std::mem::take(&mut place))?;
        buffer.drain(..cut);
        offset += cut;
        if !go_on {
            return Ok(());
        }
        if ended {
            break;
        }
        if place.is_done() {
            return rest_is_utf8(reader, buffer, offset);
        }
    }
    place.end()
}

/// Once the sheet's data is read: the rest of its part (and `carried`, read already)
/// checked as UTF-8 without being kept.
fn rest_is_utf8(mut reader: impl Read, carried: Vec<u8>, offset: usize) -> Result<(), String> {
    let mut pending = carried;
    let mut offset = offset;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let read = reader
            .read(&mut chunk)
            .map_err(|e| format!("its XML cannot be unpacked: {e}"))?;
        pending.extend_from_slice(&chunk[..read]);
        match std::str::from_utf8(&pending) {
            Ok(_) => {
                offset += pending.len();
                pending.clear();
            }
            // A character cut by the chunk's end: carried to the next.
            Err(e) if e.error_len().is_none() && read > 0 => {
                let valid = e.valid_up_to();
                offset += valid;
                pending.drain(..valid);
            }
            Err(e) => {
                return Err(format!(
                    "it is not UTF-8 at byte {}",
                    offset + e.valid_up_to()
                ));
            }
        }
        if read == 0 {
            return Ok(());
        }
    }
}

/// Where a piece of a sheet's XML may end: right after its last `</row>` that is
/// markup — after the last comment, CDATA section or processing instruction before it
/// has ended; none when no row ends in `xml`. Those are found by their `!` or `?`
/// after a `<` (one backward search for two bytes, which a sheet's data rarely holds).
fn piece_end(xml: &[u8]) -> Option<usize> {
    const ROW_END: &[u8] = b"</row>";
    let mut end = memchr::memmem::rfind(xml, ROW_END)? + ROW_END.len();
    loop {
        let opener = memchr::memrchr2_iter(b'!', b'?', &xml[..end])
            .find(|&at| at > 0 && xml[at - 1] == b'<')
            .map(|at| at - 1);
        let Some(at) = opener else {
            return Some(end);
        };
        let (skip, closer): (usize, &[u8]) = if xml[at..].starts_with(b"<!--") {
            (4, b"-->")
        } else if xml[at..].starts_with(b"<![CDATA[") {
            (9, b"]]>")
        } else if xml[at + 1] == b'?' {
            (2, b"?>")
        } else {
            (2, b">")
        };
        if memchr::memmem::find(&xml[(at + skip).min(end)..end], closer).is_some() {
            return Some(end);
        }
        // That `</row>` is text inside it: the piece ends before it opens.
        end = memchr::memmem::rfind(&xml[..at], ROW_END)? + ROW_END.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_ends_after_the_last_row_that_is_markup() {
        assert_eq!(piece_end(b"<row><c/></row><row>"), Some(15));
        assert_eq!(piece_end(b"<row><c/>"), None);
        let commented = b"<row></row><!-- </row> ";
        assert_eq!(piece_end(commented), Some(11));
        let closed = b"<row></row><!-- x --><row></row>";
        assert_eq!(piece_end(closed), Some(closed.len()));
        let cdata = b"<row></row><row><c><is><t><![CDATA[</row>";
        assert_eq!(piece_end(cdata), Some(11));
        assert_eq!(piece_end(b"<![CDATA[</row>"), None);
    }

    #[test]
    fn the_rest_of_a_part_is_checked_as_utf8_across_its_chunks() {
        let text = "データ".repeat(30_000);
        assert!(rest_is_utf8(text.as_bytes(), Vec::new(), 0).is_ok());
        let mut broken = text.into_bytes();
        broken[70_002] = 0xff;
        let said = rest_is_utf8(&broken[..], Vec::new(), 5).unwrap_err();
        assert!(said.contains("at byte 70007"), "{said}");
    }
}
