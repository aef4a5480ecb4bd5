# Sourced by the schema checks (tests/wire_schema_2026.sh, tests/templates_wire_schema.sh):
# makes Python's `jsonschema` importable, from the system or installed from PyPI into a
# scratch directory, and fails loudly (naming the caller) when PyPI cannot be reached.
#
#   ensure_jsonschema NAME
ensure_jsonschema() {
  python3 -c "import jsonschema" 2>/dev/null && return 0
  local scratch="${TMPDIR:-/tmp}/minimcp-wire-schema-py"
  if ! PYTHONPATH="$scratch" python3 -c "import jsonschema" 2>/dev/null; then
    python3 -m pip install --quiet --target "$scratch" "jsonschema>=4.18,<5" >&2 \
      || { echo "$1: FAILED: cannot install jsonschema from PyPI" >&2; exit 1; }
  fi
  export PYTHONPATH="$scratch${PYTHONPATH:+:$PYTHONPATH}"
}
