# Mentat in a container: the wheel is built in a first stage and installed, with the same two pip commands as
# .ci/wheel_check.sh (which CI runs), into a slim Python 3.11 image that runs `mentat run` as an unprivileged user.
# The SQLite database (and the .env the bot writes GAME_FILE_KEY into, when the environment has none) live in the
# volume /data. See docs/running.md.
FROM python:3.11-slim AS build
WORKDIR /src
COPY . .
RUN python -m pip wheel --no-deps --quiet --wheel-dir /dist .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /data mentat \
    && mkdir /data && chown mentat:mentat /data
COPY --from=build /dist/ /tmp/dist/
RUN python -m venv /opt/mentat \
    && /opt/mentat/bin/python -m pip install --quiet /tmp/dist/mentat-*.whl \
    && rm -rf /tmp/dist
ENV PATH=/opt/mentat/bin:$PATH DATABASE_PATH=/data/mentat.sqlite3
USER mentat
WORKDIR /data
VOLUME /data
# The bot stops cleanly on SIGTERM: give it 30 s (docker stop -t 30; compose.yaml sets stop_grace_period).
STOPSIGNAL SIGTERM
CMD ["mentat", "run"]
