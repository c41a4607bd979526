#!/bin/sh
# A user's shell client of the session API, with curl: a session, its event stream open while a message is posted
# and polled until completed, then the stream closed and the session deleted. Usage: session-flow.sh BASE_URL
set -eu
base=$1
work=$(mktemp -d)
trap 'kill "$stream" 2>/dev/null || true; rm -rf "$work"' EXIT
curl -sS -D "$work/headers" -o "$work/session" -X POST "$base/sessions" -H 'content-type: application/json' -d '{"name":"demo"}'
id=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$work/session")
token=$(tr -d '\r' < "$work/headers" | sed -n 's/^[Xx]-[Ss]ession-[Tt]oken: //p')
curl -sS -N -H "x-session-token: $token" "$base/sessions/$id/events" > "$work/events" &
stream=$!
# SSE lines may end in CR alone: read the stream with every line end made a newline.
lines() { tr '\r' '\n' < "$work/events"; }
until lines | grep -q '^event: ready'; do sleep 0.05; done
mid=$(curl -sS -X POST "$base/sessions/$id/messages" -H "x-session-token: $token" -H 'content-type: application/json' \
  -d '{"text":"hello there"}' | sed -n 's/.*"message_id":"\([^"]*\)".*/\1/p')
until curl -sS -H "x-session-token: $token" "$base/sessions/$id/messages/$mid" | grep -q '"status":"completed"'; do sleep 0.05; done
until lines | grep -q '^event: message\.\(completed\|finished\)'; do sleep 0.05; done
kill "$stream"
wait "$stream" 2>/dev/null || true
curl -sS -o /dev/null -X DELETE -H "x-session-token: $token" "$base/sessions/$id"
lines | grep -c '^event: message.delta'
