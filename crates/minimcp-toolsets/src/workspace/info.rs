//! What listings say about a file besides its name: modification time (UTC, RFC 3339) and
//! permissions (`rwxr-xr-x`, Unix only).

use std::fs::Metadata;
use std::time::UNIX_EPOCH;

/// The modification time as `2026-11-23T16:43:53Z`; `None` when the file system keeps none
/// or it is before 1970.
pub(crate) fn modified(meta: &Metadata) -> Option<String> {
    let secs = meta
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(rfc3339(secs))
}

/// Seconds since 1970 as an RFC 3339 UTC timestamp (days to civil date: Howard Hinnant's
/// public-domain algorithm, restated).
pub(crate) fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The permission bits as `rwxr-xr-x`; `None` off Unix.
pub(crate) fn permissions(meta: &Metadata) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        let mut out = String::with_capacity(9);
        for shift in [6, 3, 0] {
            let bits = (mode >> shift) & 7;
            out.push(if bits & 4 != 0 { 'r' } else { '-' });
            out.push(if bits & 2 != 0 { 'w' } else { '-' });
            out.push(if bits & 1 != 0 { 'x' } else { '-' });
        }
        Some(out)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_match_known_dates() {
        // Checked against `date -u -d @SECS +%FT%TZ` (GNU coreutils).
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_452_233), "2026-11-23T16:43:53Z");
        assert_eq!(rfc3339(4_107_542_399), "2100-02-28T23:59:59Z");
    }
}
