//! CSV files not saved as UTF-8: a Chinese Excel saves its CSV in GBK, a Japanese one in
//! Shift_JIS. Such a file's encoding is guessed from its bytes (chardetng, as browsers
//! guess an unlabelled page's) and the file decoded (encoding_rs) when the guess is an
//! East Asian encoding that reads every byte of it; anything else not UTF-8 stays
//! refused, line by line.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};

/// A file's text, decoded from the encoding it was saved in.
pub struct Decoded {
    pub text: String,
    /// The encoding's name (`GBK`, `Shift_JIS`).
    pub encoding: &'static str,
}

/// The encodings a CSV file is decoded from: those spreadsheet applications save CSV in
/// for Chinese, Japanese and Korean.
const DECODED: &[&encoding_rs::Encoding] = &[
    encoding_rs::GBK,
    encoding_rs::GB18030,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_JP,
    encoding_rs::BIG5,
    encoding_rs::EUC_KR,
];

/// `bytes` decoded, when they are not UTF-8 and are wholly text of one of the
/// [`DECODED`] encodings; `None` for UTF-8 (read as it is) and for bytes no such encoding
/// reads.
pub fn decode(bytes: &[u8]) -> Option<Decoded> {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return None;
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let encoding = detector.guess(None, Utf8Detection::Deny);
    if !DECODED.contains(&encoding) {
        return None;
    }
    let text = encoding.decode_without_bom_handling_and_without_replacement(bytes)?;
    Some(Decoded {
        text: text.into_owned(),
        encoding: encoding.name(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gbk_and_shift_jis_are_decoded_and_utf8_and_noise_are_not() {
        let (gbk, _, _) = encoding_rs::GBK.encode("编号,名称\n1,扎克镇\n2,阿努比斯神庙\n");
        let decoded = decode(&gbk).unwrap();
        assert_eq!(decoded.encoding, "GBK");
        assert_eq!(decoded.text, "编号,名称\n1,扎克镇\n2,阿努比斯神庙\n");
        let (sjis, _, _) =
            encoding_rs::SHIFT_JIS.encode("番号,名前,説明\n1,鋼の剣,よく切れる剣です\n");
        let decoded = decode(&sjis).unwrap();
        assert_eq!(decoded.encoding, "Shift_JIS");
        assert!(decoded.text.contains("鋼の剣"));
        assert!(decode("id,名前\n1,剣\n".as_bytes()).is_none());
        // A UTF-8 file with a broken byte is not taken for another encoding.
        assert!(decode(b"id,name\n1,caf\xe9\n2,na\xefve\n").is_none());
    }
}
