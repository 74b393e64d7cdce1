#!/usr/bin/env perl
# Prints one edited copy of every PEP version under DIR as COPY text rows:
# pep, version, variant, body.  Variant 0 is the version itself; variant v > 0
# is the version after a number of word edits (delete, insert or replace one
# word; inserted words are words of the same document), all drawn from a
# generator seeded with (pep, version, variant), so every run makes the same
# documents.  The number of edits is spread over 1..64 (powers of two), from a
# typo fix to a rewritten paragraph; the edit-size of real revisions is in
# ../shared/data/peps/consecutive_revision_pairs.tsv.
#   peps_edits.pl UNPACKED_PEPS_DIR VARIANT
use strict;
use warnings;
use Encode qw(decode encode FB_CROAK);

my ($dir, $variant) = @ARGV;
defined $variant or die "usage: $0 UNPACKED_PEPS_DIR VARIANT\n";

# A small deterministic generator (64-bit LCG, high bits out), so that the
# documents do not depend on Perl's rand() of the platform.
my $state;
sub seed { use integer; $state = $_[0] * 6364136223846793005 + 1442695040888963407 }
sub draw {    # uniform integer in [0, n)
    use integer;
    $state = $state * 6364136223846793005 + 1442695040888963407;
    no integer;
    return (($state >> 33) & 0x7FFFFFFF) % $_[0];
}

opendir(my $top, "$dir/versions") or die "$dir/versions: $!\n";
for my $pep_dir (sort grep { /^pep-\d+$/ } readdir $top) {
    my ($pep) = $pep_dir =~ /(\d+)/;
    opendir(my $d, "$dir/versions/$pep_dir") or die "$pep_dir: $!\n";
    for my $file (sort grep { /^\d+_\w+\.(txt|rst)$/ } readdir $d) {
        my ($version) = $file =~ /^(\d+)_/;
        open(my $fh, '<:raw', "$dir/versions/$pep_dir/$file") or die "$file: $!\n";
        local $/;
        my $bytes = <$fh>;
        close $fh;
        my $copy = $bytes;
        my $text = eval { decode('UTF-8', $copy, FB_CROAK) } // decode('latin1', $bytes);
        # edits work on the UTF-8 bytes: words end at ASCII white space, which
        # never falls inside a multi-byte character, and byte offsets are O(1)
        my $body = encode('UTF-8', $text);
        $body = edit($body, $pep, $version, $variant) if $variant > 0;
        $body =~ s/\\/\\\\/g;
        $body =~ s/\t/\\t/g;
        $body =~ s/\n/\\n/g;
        $body =~ s/\r/\\r/g;
        print $pep + 0, "\t", $version + 0, "\t", $variant, "\t", $body, "\n";
    }
}

# Word edits at random places: a place is a random character offset moved to
# the start of the word it falls in.
sub edit {
    my ($text, $pep, $version, $variant) = @_;
    seed(($pep * 100003 + $version) * 1009 + $variant);
    my $edits = 1 << draw(7);
    for (1 .. $edits) {
        my $len = length $text;
        last if $len < 2;
        my $at = word_start($text, draw($len));
        my $kind = draw(3);
        my $w = word_at($text, $at);
        if ($kind == 0) {    # delete the word
            substr($text, $at, length $w) = '';
        } else {             # insert, or replace with, a word from elsewhere in the document
            my $from = word_start($text, draw($len));
            my $other = word_at($text, $from);
            $other = 'the ' if $other eq '';
            $other .= ' ' unless $other =~ /\s$/;
            substr($text, $at, $kind == 1 ? 0 : length $w) = $other;
        }
    }
    return $text;
}

sub word_at {    # the word at byte offset at, with the white space after it
    my ($text, $at) = @_;
    pos($_[0]) = $at;
    return $_[0] =~ /\G(\S+\s*)/gc ? $1 : '';
}

sub word_start {
    my ($text, $at) = @_;
    $at-- while $at > 0 && substr($text, $at - 1, 1) =~ /\S/;
    return $at;
}
