"""`python -m bench [--json PATH] [--quick] [--only service|scale|tick|days|delivery] [--store sqlite|postgres]
[--database-url URL]`: measure the engine, the service on SQLite, 1,000 open games, the map picture, 10,000 open
games on SQLite and PostgreSQL with one and two bot processes, the deadline tick among 1,000 and 10,000 stored
games, the days a whole game takes at each pace, and the delivery of a click's messages through the Discord model
(bench/delivery_figures.py); print tables with the targets (docs/performance.md) and write every figure as JSON.

PostgreSQL is a throwaway server started for the run (its programs must be installed; see
tests/postgres_server.py), with PostgreSQL's durable defaults, or the database of --database-url."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

from bench.days_figures import GAMES, days_figures
from bench.delivery_figures import delivery_figures
from bench.engine_figures import engine_figures
from bench.map_figures import map_figures
from bench.scale_figures import BURSTS, scale_figures
from bench.service_figures import load_figures, submit_figures
from bench.tick_figures import STORED, TICKS, tick_figures
from bench.timing import now
from bot.process import tune_garbage_collector
from tests.postgres_server import PostgresServer, ServerUnavailable

# The benchmark's server keeps PostgreSQL's durable defaults (fsync, synchronous_commit, full_page_writes on);
# only the cache is sized for 10,000 games (about 300 MB of snapshots) rather than the default 128 MB.
BENCH_SERVER_SETTINGS = {"shared_buffers": "512MB"}
# The delivery figures: clicks timed in the measured game, the busy games beside it, and how often each of those
# answers a card (seconds, on average).
DELIVERY_SAMPLES, BUSY_GAMES, BUSY_INTERVAL = 100, 100, 300.0


def machine() -> dict:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor() or model
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"nproc": cpus, "cpu": model, "python": platform.python_version(),
            "system": f"{platform.system()} {platform.machine()}", "load_average_1min": load_average()}


def load_average() -> float | None:
    """How busy the machine was (other processes skew every timing), where the system tells."""
    return round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None


def rows(figures: dict) -> list[tuple[str, str, str, str]]:
    """(figure, value, target, met) for the table."""
    e, s, load, m = figures["engine"], figures["service"], figures["load"], figures["map"]
    mark = {True: "yes", False: "NO"}
    apply, game = e["apply"], e["whole_game"]
    submit, bare = s["submit"], s["bare_commit"]
    burst, steady = load["burst"], load["steady"]
    render = m["render"]
    return [
        ("engine: apply per action p50 / p99", f"{apply['p50_ms']} / {apply['p99_ms']} ms (CPU "
         f"{e['apply_cpu']['p50_ms']} / {e['apply_cpu']['p99_ms']} ms; {apply['n']} actions, {e['games']} games)",
         "p99 < 2 ms",
         mark[apply["p99_ms"] < 2]),
        ("engine: whole 7-faction game with the BT", f"p50 {game['p50_ms'] / 1000:.2f} s, max "
         f"{game['max_ms'] / 1000:.2f} s (CPU max {e['whole_game_cpu']['max_ms'] / 1000:.2f} s); "
         f"{game['games_per_second']} games/s", "every game < 2 s", mark[game["max_ms"] < 2000]),
        (f"engine: replay (verify) of a {e['replay']['turns']}-turn game", f"{e['replay']['best_ms']} ms (CPU "
         f"{e['replay']['best_cpu_ms']} ms; {e['replay']['actions']} actions)", "", ""),
        ("engine: one game's state", f"{e['memory']['state_object_kib']} KiB as objects, "
         f"{e['memory']['state_json_kib']} KiB as JSON; {e['memory']['game_peak_mib']} MiB peak over a game",
         "", ""),
        ("service: submit to commit p50 / p99", f"{submit['p50_ms']} / {submit['p99_ms']} ms (CPU "
         f"{s['submit_cpu']['p50_ms']} / {s['submit_cpu']['p99_ms']} ms; {s['actions']} actions, SQLite)", "", ""),
        ("service: of which the store's commit", f"{s['of_which_commit']['p50_ms']} / "
         f"{s['of_which_commit']['p99_ms']} ms (its read: {s['of_which_load']['p50_ms']} / "
         f"{s['of_which_load']['p99_ms']} ms; trips to the database thread per submit: "
         + ", ".join(f"{trips} ({count}x)" for trips, count in s["trips_per_submit"].items()) + ")", "", ""),
        ("service: bare commit, same size p50 / p99", f"{bare['p50_ms']} / {bare['p99_ms']} ms "
         f"({s['row_bytes_p50']} bytes)", "", ""),
        ("service: ratio submit / bare p50 / p99", f"{s['ratio_p50']} / {s['ratio_p99']}", "p99 ratio <= 2",
         mark[s["ratio_p99"] <= 2]),
        (f"load: {load['games']} open games, bursts p50 / p99", f"{burst['p50_ms']} / {burst['p99_ms']} ms "
         f"({burst['n']} submits, {burst['submits_per_second']}/s)", "p99 < 50 ms",
         mark[burst["p99_ms"] < 50]),
        (f"load: {load['games']} open games, steady p50 / p99", f"{steady['p50_ms']} / {steady['p99_ms']} ms "
         f"({steady['n']} submits at {steady['arrivals_per_second']}/s)", "p99 < 50 ms", mark[steady["p99_ms"] < 50]),
        ("load: errors", ", ".join(f"{k} {v}" for k, v in load["errors"].items()) or "none", "none",
         mark[not load["errors"]]),
        ("map: render p50 / p99", f"{render['p50_ms']} / {render['p99_ms']} ms", "p50 < 200 ms",
         mark[render["p50_ms"] < 200]),
        ("map: PNG size p50 / max", f"{m['size_kb_p50']} / {m['size_kb_max']} kB", "< 500 kB",
         mark[m["size_kb_max"] < 500]),
    ]


def scale_rows(scale: dict) -> list[tuple[str, ...]]:
    """(run, burst, steady, the disk during the steady arrivals, errors, steady target met) for the scale
    table."""
    mark = {True: "yes", False: "NO"}
    lines = []
    for label, run in scale["runs"].items():
        burst, steady = run["burst"], run["steady"]
        each = " / ".join(str(p99) for p99 in burst["p99_ms_of_each"])
        lines.append((label, f"{burst['p50_ms']} / {burst['p99_ms']} ms ({burst['n']} submits, "
                             f"{burst['submits_per_second']}/s; p99 of each burst {each} ms)",
                      f"{steady['p50_ms']} / {steady['p99_ms']} ms ({steady['n']} at "
                      f"{steady['arrivals_per_second']}/s)",
                      disk_cell(run["disk_during_steady"]),
                      ", ".join(f"{k} {v}" for k, v in run["errors"].items()) or "none",
                      mark[steady["p99_ms"] < 50 and not run["errors"]]))
    return lines


def disk_cell(disk: dict) -> str:
    """The disk probe's syncs during the steady arrivals: p50 / p99 / max and the stalls over 50 ms."""
    if not disk["n"]:
        return "not measured"
    return (f"{disk['p50_ms']} / {disk['p99_ms']} / {disk['max_ms']} ms; {disk['stalls_over_50_ms']} of "
            f"{disk['n']} over 50 ms")


def burst_ratio(scale: dict) -> float | None:
    """The 1,000-game burst's p99 with one PostgreSQL process over that with two (above 1: two are faster)."""
    one, two = scale["runs"].get("postgres, 1 process"), scale["runs"].get("postgres, 2 processes")
    if one is None or two is None:
        return None
    return round(one["burst"]["p99_ms"] / two["burst"]["p99_ms"], 2)


def markdown(lines: list[tuple[str, ...]]) -> str:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)) + " |" for line in lines]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def scale_table(scale: dict) -> str:
    header = ("Run", f"Median of {BURSTS} bursts of 1 action in each of {scale['burst_games']:,} games, p50 / p99",
              "Steady arrivals, p50 / p99", "The disk meanwhile: a 4 KiB sync, p50 / p99 / max", "Errors",
              "Steady p99 < 50 ms")
    text = (f"{scale['games']:,} open games\n" + markdown([header, *scale_rows(scale)]))
    ratio = burst_ratio(scale)
    if ratio is not None:
        text += (f"\nBurst p99, one PostgreSQL process / two: {ratio} "
                 f"({'two are faster' if ratio > 1 else 'two are NOT faster'})")
    return text


def tick_table(tick: dict) -> str:
    """The tick's time beside the number of games stored, by store."""
    header = ("Store", "Games stored", f"A tick with {tick['waiting']} games due, p50 / p99 / max "
              f"({tick['ticks']} ticks)", "Games each tick read", "Before the index: listing every game, p50")
    lines = [(store, f"{int(stored):,}", f"{run['p50_ms']} / {run['p99_ms']} / {run['max_ms']} ms",
              ", ".join(str(count) for count in run["games_read_per_tick"]),
              f"{run['listing_every_game']['p50_ms']} ms")
             for store, sizes in tick["stores"].items() for stored, run in sizes.items()]
    return markdown([header, *lines])


def days_table(days: dict) -> str:
    """The virtual days a whole game takes at each pace, and where they go by phase."""
    low, high = days["answer_delay_hours"]
    phases = list(dict.fromkeys(phase for pace in days["paces"].values() for phase in pace["days_by_phase_mean"]))
    header = ("Pace", "Days a game, mean / max", "Turns, mean", "Decisions defaulted",
              *(f"{phase.replace('_', ' ')}, days" for phase in phases))
    lines = [(pace, f"{run['days_mean']} / {run['days_max']} ({run['finished']} of {days['games']} finished)",
              str(run["turns_mean"]), f"{round(100 * run['defaults_share'])}%",
              *(str(run["days_by_phase_mean"].get(phase, 0)) for phase in phases))
             for pace, run in days["paces"].items()]
    return (f"A whole 7-faction game whose players answer after {low:g} to {high:g} hours (uniformly) and leave "
            f"{round(100 * days['never_answered'])}% of the decisions to their deadline\n" + markdown([header, *lines]))


def delivery_table(delivery: dict) -> str:
    """Click to last message delivered through the Discord model, alone and among busy games."""
    header = ("Delivery through the Discord model", "Click to last message delivered, p50 / p99 (max)", "Samples",
              "Requests served (429s)", "Tokens used late", "Target p99", "Met")
    lines = [header]
    for label, target in (("alone", 1000), (f"among {delivery['busy_games']} busy games", 2000)):
        run = delivery[label]
        lines.append((f"one game {label}", f"{run['p50_ms'] / 1000:.2f} / {run['p99_ms'] / 1000:.2f} s "
                                           f"({run['max_ms'] / 1000:.2f} s)",
                      f"{run['n']} clicks, {run['virtual_seconds']} virtual s",
                      f"{run['requests_served']} ({run['rate_limited']})", str(run["tokens_used_late"]),
                      f"<= {target / 1000:.0f} s", {True: "yes", False: "NO"}[run["p99_ms"] <= target]))
    return (f"Latency {delivery['latency_s']} s a request; busy games answer a card every "
            f"{delivery['busy_interval_s']:.0f} s on average each\n" + markdown(lines))


def progress(line: str) -> None:
    print(line, file=sys.stderr)


def table(figures: dict) -> str:
    return markdown([("Figure", "Value", "Target", "Met"), *rows(figures)])


def measure_scale(stores: list[str], database_url: str | None, games: int, burst_games: int, arrivals: int,
                  seed: int, scratch: Path, measure=None) -> dict:
    """The scale figures (or `measure(locations, log)`'s) on each store asked for; PostgreSQL on a throwaway
    server unless given a URL. A missing PostgreSQL is said, not hidden: its runs are missing from the table and
    `postgres_missing` says why."""
    locations = {"sqlite": str(scratch / "scale.sqlite")} if "sqlite" in stores else {}
    server = None
    problem = None
    if "postgres" in stores:
        if database_url is not None:
            locations["postgres"] = database_url
        else:
            try:
                server = PostgresServer.start(BENCH_SERVER_SETTINGS)
                locations["postgres"] = server.url
            except ServerUnavailable as error:
                problem = str(error)
                print(f"PostgreSQL NOT measured: {problem}", file=sys.stderr)
    def log(line: str) -> None:
        print(line, file=sys.stderr)

    try:
        figures = (measure(locations, log) if measure is not None else
                   scale_figures(locations, games, burst_games, arrivals, seed, str(scratch), log=log))
    finally:
        if server is not None:
            server.stop()
    if problem is not None:
        figures["postgres_missing"] = problem
    if "postgres" in locations:
        figures["postgres_server"] = ("given by --database-url" if database_url is not None else
                                      "throwaway PostgreSQL 15 on loopback, durable defaults, "
                                      + ", ".join(f"{k}={v}" for k, v in BENCH_SERVER_SETTINGS.items()))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="out/bench.json", help="where to write the figures (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="small numbers, to check the benchmark runs")
    parser.add_argument("--only", choices=["service", "scale", "tick", "days", "delivery"],
                        help="measure one part alone and print its figures (the big table needs every part)")
    parser.add_argument("--store", choices=["sqlite", "postgres"], action="append",
                        help="the stores of the scale figures (repeat for both; default both)")
    parser.add_argument("--database-url", help="a PostgreSQL database for the scale figures instead of a "
                                               "throwaway server (its tables are created; use an empty one)")
    args = parser.parse_args(argv)
    games, load_games, rounds, paced, max_actions = (2, 20, 1, 20, 100) if args.quick else (10, 1000, 3, 1000, 5000)
    scale_games, burst_games, arrivals = (300, 40, 30) if args.quick else (10_000, 1000, 2000)
    tick_sizes, ticks = ((300, 1000), 5) if args.quick else (STORED, TICKS)
    clicks, busy_games = (10, 5) if args.quick else (DELIVERY_SAMPLES, BUSY_GAMES)
    tune_garbage_collector()  # measured as the bot runs (bot/process.py)
    stores = args.store or ["sqlite", "postgres"]
    started = now()
    figures: dict = {"machine": machine()}
    if args.only == "service":
        with tempfile.TemporaryDirectory(prefix="mentat-bench-") as scratch:
            figures["service"] = asyncio.run(submit_figures(Path(scratch) / "service.sqlite", args.seed,
                                                            max_actions))
        figures["machine"]["load_average_1min_after"] = load_average()
        print(json.dumps(figures, indent=1))
        return 0
    if args.only == "days":
        figures["days"] = days_figures(args.seed, 1 if args.quick else GAMES,
                                       log=lambda line: print(line, file=sys.stderr))
        print(days_table(figures["days"]))
        _write(figures, args.json)
        return 0
    if args.only == "tick":
        with tempfile.TemporaryDirectory(prefix="mentat-bench-") as scratch:
            figures["tick"] = measure_scale(stores, args.database_url, 0, 0, 0, args.seed, Path(scratch),
                                            lambda locations, log: tick_figures(locations, args.seed, tick_sizes,
                                                                                ticks, log))
        print(tick_table(figures["tick"]))
        _write(figures, args.json)
        return 0
    if args.only == "delivery":
        figures["delivery"] = asyncio.run(delivery_figures(clicks, busy_games, BUSY_INTERVAL, args.seed, log=progress))
        figures["machine"]["load_average_1min_after"] = load_average()
        print(delivery_table(figures["delivery"]))
        _write(figures, args.json)
        return 0
    with tempfile.TemporaryDirectory(prefix="mentat-bench-") as scratch:
        if args.only != "scale":
            figures["engine"], record = engine_figures(games, args.seed)
            print(f"engine done ({now() - started:.0f} s)", file=sys.stderr)
            figures["service"] = asyncio.run(submit_figures(Path(scratch) / "service.sqlite", args.seed,
                                                            max_actions))
            print(f"service done ({now() - started:.0f} s)", file=sys.stderr)
            figures["load"] = asyncio.run(load_figures(Path(scratch) / "load.sqlite", load_games, rounds, paced,
                                                       args.seed))
            print(f"load done ({now() - started:.0f} s)", file=sys.stderr)
            figures["map"] = map_figures(record, repeats=1 if args.quick else 3)
            figures["days"] = days_figures(args.seed, 1 if args.quick else GAMES,
                                           log=lambda line: print(line, file=sys.stderr))
        figures["scale"] = measure_scale(stores, args.database_url, scale_games, burst_games, arrivals, args.seed,
                                         Path(scratch))
        print(f"scale done ({now() - started:.0f} s)", file=sys.stderr)
        (scratch_path := Path(scratch) / "tick").mkdir()
        figures["tick"] = measure_scale(stores, args.database_url, 0, 0, 0, args.seed, scratch_path,
                                        lambda locations, log: tick_figures(locations, args.seed, tick_sizes, ticks,
                                                                            log))
        print(f"tick done ({now() - started:.0f} s)", file=sys.stderr)
    if args.only is None:
        figures["delivery"] = asyncio.run(delivery_figures(clicks, busy_games, BUSY_INTERVAL, args.seed, log=progress))
        print(f"delivery done ({now() - started:.0f} s)", file=sys.stderr)
    figures["seconds"] = round(now() - started, 1)
    figures["machine"]["load_average_1min_after"] = load_average()
    m = figures["machine"]
    print(f"Mentat benchmark: {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, {m['system']}; load average "
          f"{m['load_average_1min']} before, {m['load_average_1min_after']} after; {figures['seconds']} s")
    if args.only != "scale":
        print(table(figures))
        print(days_table(figures["days"]))
    print(scale_table(figures["scale"]))
    if "delivery" in figures:
        print(delivery_table(figures["delivery"]))
    if "postgres_missing" in figures["scale"]:
        print(f"PostgreSQL NOT measured: {figures['scale']['postgres_missing']}")
    print(tick_table(figures["tick"]))
    _write(figures, args.json)
    return 0


def _write(figures: dict, json_path: str) -> None:
    path = Path(json_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(f"Figures written to {path}")


if __name__ == "__main__":
    sys.exit(main())
