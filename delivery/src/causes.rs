//! Reading what an error says went wrong from its causes' types, never their words:
//! the causes an error chain holds, into the errors an I/O error carries (which its
//! `source` passes over), and the TLS failure that refused a server's certificate.

/// The TLS failure among an error's causes that refused the server's certificate, if
/// one did. Read from the causes' types.
pub(crate) fn refused_certificate<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a rustls::Error> {
    causes(error).find_map(|e| match e.downcast_ref::<rustls::Error>() {
        Some(tls @ rustls::Error::InvalidCertificate(_)) => Some(tls),
        _ => None,
    })
}

/// An error and its causes, outermost first — into the error an I/O error carries too,
/// which its `source` passes over (a TLS stream's failure is one, inside another).
pub(crate) fn causes<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |e| {
        match e
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        }
    })
}

/// A TLS failure as the TLS stream hands it on: inside an I/O error, inside another.
#[cfg(test)]
pub(crate) fn as_the_tls_stream_gives_it(tls: rustls::Error) -> std::io::Error {
    std::io::Error::other(std::io::Error::new(std::io::ErrorKind::InvalidData, tls))
}
