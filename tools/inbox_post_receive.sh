#!/bin/sh
# A git post-receive hook that turns a push into a ladder submission (README, "Entering bots: the inbox").
#
# Install it as hooks/post-receive of one bare repository per owner, owned by that owner's Unix user, with
#   git config kierki.inbox /srv/kierki/inbox/OWNER   (the owner's own inbox folder, writable by that user only)
# Each branch pushed is a bot: branch NAME becomes OWNER/NAME/ with the tree of the pushed commit (bot.toml at its
# top), and READY is written last, so the ladder never takes a half-written copy. A deleted branch is ignored.
set -eu
inbox=$(git config kierki.inbox) || { echo "kierki: git config kierki.inbox is not set" >&2; exit 1; }
umask 002  # the ladder's group reads the files, removes READY and writes result.json
while read -r old new ref; do
    name=${ref#refs/heads/}
    case $ref in refs/heads/*) ;; *) continue ;; esac
    case $new in 0000000000000000000000000000000000000000) continue ;; esac
    case $name in *[!A-Za-z0-9_.+-]* | "" | .*) echo "kierki: branch '$name': use letters, digits and _.-+" >&2; continue ;; esac
    staging="$inbox/.$name.incoming"
    rm -rf "$staging"
    mkdir -p "$staging"
    git archive "$new" | tar -x -C "$staging"
    rm -rf "$inbox/$name"
    mv "$staging" "$inbox/$name"
    : > "$inbox/$name/READY"
    echo "kierki: $name submitted as commit $new; the next ladder run takes it (see $name/result.json)"
done
