#!/usr/bin/env bash
# A bot as a first-time author writes it in bash from PROTOCOL.md: one jq process for every message it reads,
# so it is slow (a few ms a message) but correct. check-bot must pass it with the default time per move.
while IFS= read -r line; do
    type=$(jq -r '.type' <<<"$line")
    case "$type" in
        hello) jq -c '{type: "hello", id: .id, name: "bash-jq", version: "1", protocol: 1}' <<<"$line" ;;
        pass) jq -c '{type: "pass", id: .id, cards: .hand[0:.count]}' <<<"$line" ;;
        trump) jq -c '{type: "trump", id: .id, suit: .choices[0]}' <<<"$line" ;;
        play) jq -c '{type: "play", id: .id, card: .legal[0]}' <<<"$line" ;;
        moon) jq -c '{type: "moon", id: .id, choice: "others"}' <<<"$line" ;;
        bye) exit 0 ;;
    esac
done
