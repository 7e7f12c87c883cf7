#!/usr/bin/env bash
# The package as an admin installs it: build the wheel, check that it carries the game data and the migrations,
# install it in a fresh virtual environment in a temporary folder outside the source tree, and run `mentat check`
# and `mentat backup` there. Called by .ci/run after `make test` (and by `make wheel-check`). The Dockerfile installs
# the wheel with the same two pip commands.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
APPLICATION_ID=123456789012345678
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$PYTHON" -m pip wheel --no-deps --quiet --wheel-dir "$work/dist" .
wheel=("$work"/dist/mentat-*.whl)
"$PYTHON" - "${wheel[0]}" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
wanted = {f"engine/game_data/{name}.json" for name in ("board", "cards", "factions", "rules")}
wanted |= {"bot/store/migrations/0001_init.sql", "bot/store/postgres_migrations/0001_init.sql"}
missing = sorted(wanted - names)
if missing:
    sys.exit(f"wheel-check: the wheel lacks {', '.join(missing)}")
PY

"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "${wheel[0]}"

cd "$work"  # outside the source tree: only the installed package can be imported
unset PYTHONPATH DISCORD_TOKEN DATABASE_URL DEV_GUILD_ID
export DATABASE_PATH="$work/mentat.sqlite3" DISCORD_APPLICATION_ID="$APPLICATION_ID"
"$work/venv/bin/mentat" check > check.txt || { cat check.txt; echo "wheel-check: mentat check failed"; exit 1; }
permissions="$("$work/venv/bin/python" -c 'from bot.discord.permissions import permissions_integer as p; print(p())')"
invite="https://discord.com/oauth2/authorize?client_id=$APPLICATION_ID&scope=bot+applications.commands&permissions=$permissions"
grep -qF "$invite" check.txt || { cat check.txt; echo "wheel-check: no invite URL $invite"; exit 1; }
"$work/venv/bin/mentat" backup "$work/backup.sqlite3"
"$work/venv/bin/python" -c 'import engine.data as d, bot.app.rules as r; d.load_game_data(); r.all_rules()
assert "site-packages" in str(d.DATA_DIR), d.DATA_DIR'
echo "wheel-check: $(basename "${wheel[0]}") installed outside the source tree; mentat check printed $invite"
