#!/usr/bin/env node
// bot.js - a kierki starter bot in JavaScript (Node.js 14 or later, standard library only).
//
// Run it:    node sample_bots/js/bot.js
// Play it:   kierki match 'node sample_bots/js/bot.js' 'node sample_bots/js/bot.js' ...
// Check it:  kierki check-bot -- node sample_bots/js/bot.js
//
// It plays every game legally and nothing more: it passes the first cards of its hand, names the first trump
// offered, plays the first legal card and lets the others take the moon points. Change the choose* functions.
//
// The protocol (PROTOCOL.md) in short: the referee writes one JSON object per line to our stdin. Messages with
// an "id" (hello, pass, trump, play, moon) are requests: answer each with one JSON line on stdout with the same
// "type" and "id". Everything else is an event needing no answer. Ignore message types and fields you do not
// know: the protocol grows by adding them. stdout is only for answers; log to stderr. Exit on "bye" or when
// stdin closes.
'use strict';

const readline = require('readline');

const NAME = 'starter-js';
const VERSION = '1.0';
const PROTOCOL = 2;

// Logs go to stderr: the referee keeps them in a file. Anything on stdout must be a protocol message.
function log(...args) {
  console.error(`${NAME}:`, ...args);
}

// One answer = one compact JSON line. Node has no stdout buffer to flush: write() passes the line to the
// operating system right away (or queues it while the pipe is full), so the referee sees it at once.
function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

// The decisions. Each request lists what is allowed ("hand", "choices", "legal"), so no rules are needed here.
function choosePass(msg) {
  return msg.hand.slice(0, msg.count); // any `count` cards of the hand
}

function chooseTrump(msg) {
  return msg.choices[0]; // msg.cards holds the 5 (3 players: 6) cards seen so far
}

function choosePlay(msg) {
  return msg.legal[0]; // never empty; msg.trick, msg.tricks, msg.lottery tell the rest
}

function chooseMoon(msg) {
  return 'others'; // msg.options.self / msg.options.others: the totals after each choice
}

// The answer to one message, or null for events and for types this bot does not know.
function answer(msg) {
  switch (msg.type) {
    case 'hello':
      return { name: NAME, version: VERSION, protocol: PROTOCOL };
    case 'pass':
      return { cards: choosePass(msg) };
    case 'trump':
      return { suit: chooseTrump(msg) };
    case 'play':
      return { card: choosePlay(msg) };
    case 'moon':
      return { choice: chooseMoon(msg) };
    case 'error':
      log('the referee says:', msg.code, msg.message);
      return null;
    default:
      return null; // game_start, deal, played, trick, deal_end, game_end, ... and unknown types
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
let finished = false; // set on bye: lines already read after it are dropped

input.on('line', (line) => {
  if (finished || line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    log('ignoring a line that is not JSON:', line.slice(0, 200));
    return;
  }
  if (msg === null || typeof msg !== 'object') return;
  if (msg.type === 'bye') {
    log('bye:', msg.reason);
    finished = true;
    input.close(); // stop reading; the 'close' handler below exits
    return;
  }
  const reply = answer(msg);
  if (reply !== null) {
    send({ type: msg.type, id: msg.id, ...reply });
  }
});

// End of input (the referee closed our stdin) or bye: exit with status 0 once stdout is written.
input.on('close', () => {
  process.stdout.write('', () => process.exit(0));
});
