//! RFC 3339 timestamps in UTC, from the system clock, without a date crate: the civil date of
//! a day count is a few lines of integer arithmetic (the proleptic Gregorian calendar, as
//! RFC 3339 and `date -u` use).

use std::fmt::Write;
use std::time::{SystemTime, UNIX_EPOCH};

/// Appends `now` as `YYYY-MM-DDTHH:MM:SS.mmmZ` to `out`. A clock before 1970 writes the epoch.
pub(crate) fn rfc3339(now: SystemTime, out: &mut String) {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, second_of_day) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_date(days);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60,
        since.subsec_millis()
    );
}

/// The text of the last second a line was written in, so that the lines of one second
/// (nearly all of them, under load) only write their milliseconds: the date and time take
/// a dozen divisions and a formatter, which showed in the cost of a request at `info`.
pub(crate) struct Stamp {
    second: u64,
    /// `YYYY-MM-DDTHH:MM:SS.` of `second`.
    text: String,
}

impl Stamp {
    pub(crate) const fn new() -> Stamp {
        Stamp {
            second: u64::MAX,
            text: String::new(),
        }
    }

    /// Appends `now` as [`rfc3339`] would.
    pub(crate) fn write(&mut self, now: SystemTime, out: &mut String) {
        let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
        if since.as_secs() != self.second {
            self.second = since.as_secs();
            self.text.clear();
            rfc3339(
                UNIX_EPOCH + std::time::Duration::from_secs(self.second),
                &mut self.text,
            );
            self.text.truncate(self.text.len() - "000Z".len());
        }
        out.push_str(&self.text);
        let millis = since.subsec_millis();
        let digit = |d: u32| char::from(b'0' + d as u8);
        out.extend([
            digit(millis / 100),
            digit(millis / 10 % 10),
            digit(millis % 10),
            'Z',
        ]);
    }
}

/// The year, month (1-12) and day (1-31) of the day `days` after 1970-01-01.
///
/// Counted in 400-year eras from 0000-03-01, which start and end alike (146,097 days each),
/// with the year starting in March so that the leap day is the last day of a year: then a
/// day's year within its era and its day within that year follow from plain divisions.
fn civil_date(days: u64) -> (u64, u64, u64) {
    // 719,468 days from 0000-03-01 to 1970-01-01.
    let shifted = days + 719_468;
    let era = shifted / 146_097;
    let day_of_era = shifted % 146_097;
    // Every 4th year is a leap year, but not every 100th, but every 400th: the day of the
    // era less the leap days before it, divided by 365.
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months from March: 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 28/29 days, which
    // (153 × month + 2) / 5 counts exactly.
    let march_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * march_month + 2) / 5 + 1;
    let month = if march_month < 10 {
        march_month + 3
    } else {
        march_month - 9
    };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::Duration;

    fn stamp(secs: u64, millis: u32) -> String {
        let mut out = String::new();
        let when = UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis.into());
        rfc3339(when, &mut out);
        out
    }

    #[test]
    fn the_cached_stamp_writes_what_rfc3339_writes() {
        let mut stamp = Stamp::new();
        for (secs, millis) in [
            (0, 0),
            (0, 999),
            (1, 5),
            (951_782_400, 42),
            (951_782_400, 43),
            (1, 0),
        ] {
            let when = UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis);
            let (mut cached, mut direct) = (String::new(), String::new());
            stamp.write(when, &mut cached);
            rfc3339(when, &mut direct);
            assert_eq!(cached, direct);
        }
    }

    #[test]
    fn known_instants() {
        assert_eq!(stamp(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(stamp(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(stamp(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
        assert_eq!(stamp(4_107_542_400, 0), "2100-03-01T00:00:00.000Z");
        let mut before = String::new();
        rfc3339(UNIX_EPOCH - Duration::from_secs(5), &mut before);
        assert_eq!(before, "1970-01-01T00:00:00.000Z");
    }

    /// Against Python's `datetime` (an independent calendar): 2,000 instants spread over
    /// 1970-9999, each day boundary of the leap years around 2000 and 2100 included. Skipped,
    /// visibly, without python3.
    #[test]
    fn agrees_with_python_datetime() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut secs: Vec<u64> = (0..2_000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed % 253_402_300_800 // up to 9999-12-31
            })
            .collect();
        secs.extend(
            (0..4).flat_map(|k| [951_782_400 + k * 86_400 - 1, 4_107_456_000 + k * 86_400]),
        );
        let script = "import sys, datetime\nfor s in sys.argv[1:]:\n    print(datetime.datetime.fromtimestamp(int(s), datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z'))";
        let args: Vec<String> = secs.iter().map(u64::to_string).collect();
        let Ok(out) = Command::new("python3")
            .arg("-c")
            .arg(script)
            .args(&args)
            .output()
        else {
            eprintln!("SKIPPED: python3 is not installed; RFC 3339 dates not checked against it");
            return;
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expected = String::from_utf8(out.stdout).expect("utf-8");
        for (secs, want) in secs.iter().zip(expected.lines()) {
            assert_eq!(stamp(*secs, 0), want, "{secs}");
        }
        assert_eq!(expected.lines().count(), secs.len());
    }
}
