//! Unit tests of line windows, against coreutils where installed.
use super::*;
use std::io::Cursor;
use std::process::Command;

fn read(text: &str, from: From, limit: u64, budget: usize) -> Window {
    window(
        Cursor::new(text.as_bytes().to_vec()),
        text.len() as u64,
        from,
        limit,
        budget,
    )
    .expect("in memory")
}

/// What coreutils say, when they are installed: the independent reference.
fn coreutils(args: &[&str], text: &str) -> Option<Vec<String>> {
    let dir = std::env::temp_dir().join(format!("minimcp-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join(format!("{}.txt", args.join("_").replace('/', "")));
    std::fs::write(&file, text).ok()?;
    let out = Command::new(args[0])
        .args(&args[1..])
        .arg(&file)
        .output()
        .ok()?;
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.lines().map(str::to_string).collect())
}

fn sample() -> String {
    (1..=500)
        .map(|n| format!("line {n} {}\n", "x".repeat(n % 37)))
        .collect::<String>()
        + "no newline at the end"
}

#[test]
fn ranges_match_sed_tail_and_wc() {
    let text = sample();
    let Some(wc) = coreutils(&["wc", "-l"], &text) else {
        eprintln!("lines: coreutils not found; skipping the comparison");
        return;
    };
    let newlines: u64 = wc[0].split_whitespace().next().unwrap().parse().unwrap();
    let w = read(&text, From::Line(120), 30, 1 << 20);
    assert_eq!(
        w.total_lines,
        Some(newlines + 1),
        "wc -l counts newlines only"
    );
    assert_eq!(
        Some(w.lines.clone()),
        coreutils(&["sed", "-n", "120,149p"], &text)
    );
    assert_eq!((w.start_line, w.end_line()), (Some(120), Some(149)));
    let t = read(&text, From::Tail(7), 0, 1 << 20);
    assert_eq!(
        Some(t.lines.clone()),
        coreutils(&["tail", "-n", "7"], &text)
    );
    assert_eq!(t.start_line, Some(newlines + 1 - 6));
    // Reading on from where the tail starts gives the same lines.
    let again = read(&text, From::Byte(t.start_byte), 100, 1 << 20);
    assert_eq!(again.lines, t.lines);
    assert_eq!(again.start_line, t.start_line);
}

#[test]
fn budget_stops_at_a_line_and_cuts_a_long_one() {
    let text = sample();
    let w = read(&text, From::Line(1), 1000, 2000);
    let used: usize = w.lines.iter().map(|l| cost(l)).sum();
    assert!(used <= 2000 && w.lines.len() > 10, "{used}");
    assert_eq!(
        w.end_byte as usize,
        text.lines()
            .take(w.lines.len())
            .map(|l| l.len() + 1)
            .sum::<usize>()
    );
    let long = format!("{}\nnext\n", "é".repeat(5000));
    let w = read(&long, From::Line(1), 10, 1001);
    assert!(w.cut && w.lines.len() == 1 && w.lines[0].chars().all(|c| c == 'é'));
    let rest = read(&long, From::Byte(w.end_byte), 10, 1 << 20);
    assert_eq!(rest.lines[0].len() + w.lines[0].len(), 10_000);
    assert_eq!(rest.lines[1], "next");
}

#[test]
fn edges() {
    assert_eq!(read("", From::Line(1), 10, 100).lines.len(), 0);
    assert!(read("a\nb\n", From::Line(3), 10, 100).past_end);
    assert_eq!(read("a\nb\n", From::Line(3), 10, 100).total_lines, Some(2));
    assert!(!read("a\nb", From::Line(2), 10, 100).past_end);
    // Past the end, the total comes from the skip's own count: with and without a last newline.
    let past = read("a\nb", From::Line(5), 10, 100);
    assert!(past.past_end);
    assert_eq!(past.total_lines, Some(2));
    assert_eq!(read("a\nb\n", From::Line(9), 10, 100).total_lines, Some(2));
    assert_eq!(read("", From::Line(2), 10, 100).total_lines, Some(0));
    assert_eq!(read("a\r\nb\r\n", From::Line(1), 10, 100).lines, ["a", "b"]);
    assert_eq!(read("a\nb\n", From::Tail(5), 0, 100).lines, ["a", "b"]);
    assert_eq!(read("", From::Tail(5), 0, 100).lines.len(), 0);
    let bad = read("a\u{1}\n\u{ff}", From::Line(1), 10, 100);
    assert_eq!(bad.lines, ["a\u{1}", "\u{ff}"]);
    let lossy = window(
        Cursor::new(b"ok\n\xff\n".to_vec()),
        5,
        From::Line(1),
        10,
        100,
    )
    .unwrap();
    assert!(lossy.lossy);
}
