# Sourced by the scripts: a virtual environment in .venv made with Python 3.11 or newer.
VENV="${VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "CoDNA needs Python 3.11 or newer; set PYTHON to one." >&2; exit 1; }
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
fi
