#!/usr/bin/env perl
# bot.pl - a kierki starter bot in Perl 5 (core modules only: JSON::PP ships with Perl since 5.14).
#
# Run it:    perl sample_bots/perl/bot.pl
# Play it:   kierki match 'perl sample_bots/perl/bot.pl' 'perl sample_bots/perl/bot.pl' ...
# Check it:  kierki check-bot -- perl sample_bots/perl/bot.pl
#
# It plays every game legally and nothing more: it passes the first cards of its hand, names the first trump
# offered, plays the first legal card and lets the others take the moon points. Change the choose_* subs.
#
# The protocol (PROTOCOL.md) in short: the referee writes one JSON object per line to our stdin. Messages with
# an "id" (hello, pass, trump, play, moon) are requests: answer each with one JSON line on stdout with the same
# "type" and "id". Everything else is an event needing no answer. Ignore message types and fields you do not
# know: the protocol grows by adding them. stdout is only for answers; log to stderr. Exit on "bye" or when
# stdin closes.
use strict;
use warnings;
use JSON::PP;

my $NAME     = 'starter-perl';
my $VERSION  = '1.0';
my $PROTOCOL = 2;

$| = 1;    # autoflush STDOUT: the referee must see every answer at once, not when a buffer fills up

my $json = JSON::PP->new->utf8;    # lines are UTF-8 bytes; encode() gives one line (no pretty printing)

# Logs go to stderr: the referee keeps them in a file. Anything on stdout must be a protocol message.
sub logmsg { print STDERR "$NAME: @_\n" }

# The decisions. Each request lists what is allowed ("hand", "choices", "legal"), so no rules are needed here.
sub choose_pass {
    my ($msg) = @_;
    my @hand = @{ $msg->{hand} };
    return [ @hand[ 0 .. $msg->{count} - 1 ] ];    # any `count` cards of the hand
}

sub choose_trump {
    my ($msg) = @_;
    return $msg->{choices}[0];    # $msg->{cards} holds the 5 (3 players: 6) cards seen so far
}

sub choose_play {
    my ($msg) = @_;
    return $msg->{legal}[0];      # never empty; trick, tricks and lottery tell the rest
}

sub choose_moon {
    my ($msg) = @_;
    return 'others';              # $msg->{options}{self} / {others}: the totals after each choice
}

# The answer to one message, or undef for events and for types this bot does not know.
sub answer {
    my ($msg) = @_;
    my $type = $msg->{type} // '';
    return { name => $NAME, version => $VERSION, protocol => $PROTOCOL } if $type eq 'hello';
    return { cards  => choose_pass($msg) }  if $type eq 'pass';
    return { suit   => choose_trump($msg) } if $type eq 'trump';
    return { card   => choose_play($msg) }  if $type eq 'play';
    return { choice => choose_moon($msg) }  if $type eq 'moon';
    logmsg( 'the referee says: ' . ( $msg->{message} // '' ) ) if $type eq 'error';
    return undef;    # game_start, deal, played, trick, deal_end, game_end, ... and unknown types
}

while ( my $line = <STDIN> ) {
    $line =~ s/\r?\n\z//;
    next if $line =~ /^\s*$/;
    my $msg = eval { $json->decode($line) };
    if ( ref $msg ne 'HASH' ) {
        logmsg( 'ignoring a line that is not a JSON object: ' . substr( $line, 0, 200 ) );
        next;
    }
    my $type = $msg->{type} // '';
    if ( $type eq 'bye' ) {
        logmsg("bye: " . ( $msg->{reason} // '' ));
        last;
    }
    my $reply = answer($msg);
    next unless $reply;
    $reply->{type} = $type;
    $reply->{id}   = 0 + $msg->{id};    # "0 +" keeps it a JSON number even if it was ever used as a string
    print $json->encode($reply), "\n";
}
exit 0;    # bye or end of input
