#!/usr/bin/env perl
# Prints every PEP version under DIR (versions/pep-NNNN/III_<commit>.txt or .rst) as COPY
# text rows: pep, version, body. Bodies are UTF-8; the few old versions that are
# not valid UTF-8 are Latin-1 and are converted, so any database can load them.
use strict;
use warnings;
use Encode qw(decode encode FB_CROAK);

my $dir = shift or die "usage: $0 UNPACKED_PEPS_DIR\n";
my $every = shift // 1;
opendir(my $top, "$dir/versions") or die "$dir/versions: $!\n";
my @peps = sort grep { /^pep-\d+$/ } readdir $top;
my $n = 0;
for my $pep_dir (@peps) {
    my ($pep) = $pep_dir =~ /(\d+)/;
    opendir(my $d, "$dir/versions/$pep_dir") or die "$pep_dir: $!\n";
    for my $file (sort grep { /^\d+_\w+\.(txt|rst)$/ } readdir $d) {
        next if $n++ % $every;
        my ($version) = $file =~ /^(\d+)_/;
        open(my $fh, '<:raw', "$dir/versions/$pep_dir/$file") or die "$file: $!\n";
        local $/;
        my $bytes = <$fh>;
        close $fh;
        my $copy = $bytes;
        my $text = eval { decode('UTF-8', $copy, FB_CROAK) } // decode('latin1', $bytes);
        my $body = encode('UTF-8', $text);
        $body =~ s/\\/\\\\/g;
        $body =~ s/\t/\\t/g;
        $body =~ s/\n/\\n/g;
        $body =~ s/\r/\\r/g;
        print $pep + 0, "\t", $version + 0, "\t", $body, "\n";
    }
}
