//! `{a,b}` alternatives in search patterns: expanded into plain patterns before a glob is
//! compiled (nested braces and `\\` escapes respected, the count bounded by
//! [`MAX_BRACE_EXPANSIONS`]).

use super::limits::MAX_BRACE_EXPANSIONS;

/// Expands `{a,b}` alternatives (nested, escapes respected) into plain patterns.
pub(crate) fn expand_braces(pattern: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    expand_into(pattern, &mut out)?;
    Ok(out)
}

fn expand_into(pattern: &str, out: &mut Vec<String>) -> Result<(), String> {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    let mut open = None;
    let mut depth = 0usize;
    let mut commas = Vec::new();
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            b',' if depth == 1 => commas.push(i),
            b'}' if depth == 0 => {
                return Err("unbalanced `}` in the pattern; escape it as `\\}`".into())
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    let start = open.unwrap_or(0);
                    let (prefix, suffix) = (&pattern[..start], &pattern[i + 1..]);
                    let mut bounds = vec![start];
                    bounds.extend(&commas);
                    bounds.push(i);
                    for pair in bounds.windows(2) {
                        let choice = &pattern[pair[0] + 1..pair[1]];
                        expand_into(&format!("{prefix}{choice}{suffix}"), out)?;
                        if out.len() > MAX_BRACE_EXPANSIONS {
                            return Err(format!(
                                "the braces expand to more than {MAX_BRACE_EXPANSIONS} patterns"
                            ));
                        }
                    }
                    return Ok(());
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth > 0 {
        return Err("unclosed `{` in the pattern; escape it as `\\{`".into());
    }
    out.push(pattern.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternatives_multiply_and_nest() {
        assert_eq!(
            expand_braces("a{1,2}{3,4}").expect("ok"),
            ["a13", "a14", "a23", "a24"]
        );
        assert_eq!(
            expand_braces("a{b,{c,d}e}f").expect("ok"),
            ["abf", "acef", "adef"]
        );
        assert_eq!(expand_braces("x{,y}").expect("ok"), ["x", "xy"]);
        assert_eq!(expand_braces("{only}").expect("ok"), ["only"]);
        assert_eq!(expand_braces("\\{a,b\\}").expect("ok"), ["\\{a,b\\}"]);
        assert_eq!(expand_braces("plain").expect("ok"), ["plain"]);
    }

    #[test]
    fn unbalanced_and_explosive_braces_are_refused() {
        assert!(expand_braces("{a,b")
            .expect_err("open")
            .contains("unclosed"));
        assert!(expand_braces("a}")
            .expect_err("close")
            .contains("unbalanced"));
        let bomb = "{a,b}".repeat(9);
        assert!(expand_braces(&bomb)
            .expect_err("bomb")
            .contains("more than"));
        assert_eq!(
            expand_braces(&"{a,b}".repeat(8)).expect("256").len(),
            MAX_BRACE_EXPANSIONS
        );
    }
}
