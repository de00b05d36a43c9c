# make bench's plots, drawn in build/bench from scripts/lib/bench-report's
# .dat files: gnuplot tests/bench/plots.gnuplot
set terminal pngcairo size 800,480 font ",10"
set grid ytics
set key top left

set output "mmap-added.png"
set title "Time the build-ID lookup adds to one mmap()+munmap() (QEMU/TCG)"
set ylabel "µs per mmap()+munmap(), build ID minus MMAP2 only"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set yrange [0:*]
plot "mmap-added.dat" using 2:3:4:xtic(1) title "5.10.262 + series", \
     "" using 5:6:7 title "6.12.117 (mainline)"

set output "exec-extra.png"
set title "--buildid-mmap over perf record -a, exec-heavy work (QEMU/TCG)"
set ylabel "extra time per exec, %"
set yrange [*:*]
plot "exec-extra.dat" using 2:3:4:xtic(1) title "5.10.262 + series", \
     "" using 5:6:7 title "6.12.117 (mainline)"

set style data linespoints
set xlabel "perf.data size, MB"
set yrange [0:*]
set output "teardown.png"
set title "perf record teardown (SIGINT to exit), host kernel"
set ylabel "ms"
plot "teardown-this-tree.dat" using 1:2 title "this tree's perf, classic", \
     "" using 1:3 title "this tree's perf, classic -N", \
     "" using 1:4 title "this tree's perf, --buildid-mmap", \
     "" using 1:5 title "this tree's perf, --buildid-mmap -N", \
     "teardown-debian.dat" using 1:2 title "Debian's perf, classic" dashtype 2, \
     "" using 1:3 title "Debian's perf, classic -N" dashtype 2, \
     "" using 1:4 title "Debian's perf, --buildid-mmap" dashtype 2, \
     "teardown-mainline-7.3.dat" using 1:2 title "mainline perf 7.3, --no-buildid-mmap" dashtype 3, \
     "" using 1:4 title "mainline perf 7.3, its default (--buildid-mmap)" dashtype 3

set output "report-startup.png"
set title "perf report --stdio on the same files, host kernel"
set ylabel "ms"
plot "report-this-tree.dat" using 1:2 title "this tree's perf, IDs from the header (classic)", \
     "" using 1:3 title "this tree's perf, IDs from MMAP2 records", \
     "report-debian.dat" using 1:2 title "Debian's perf, IDs from the header (classic)" dashtype 2, \
     "" using 1:3 title "Debian's perf, IDs from MMAP2 records" dashtype 2

set style data histogram
set style histogram clustered gap 2
set style fill solid 0.6 border -1
unset xlabel
set output "insns-mmap.png"
set title "Guest instructions the build-ID lookup adds to one mmap() (QEMU's count)"
set ylabel "instructions per mmap()+munmap(), build ID minus MMAP2 only"
set logscale y
set yrange [100:*]
plot "insns-mmap.dat" using 2:xtic(1) title "5.10.262 + series", \
     "" using 3 title "6.12.117 (mainline)"
unset logscale y

set output "insns-exec.png"
set title "Guest instructions a build-ID listener adds per exec, over an MMAP2-only one"
set ylabel "extra instructions per exec, %"
set yrange [0:*]
plot "insns-exec.dat" using 2:xtic(1) title "5.10.262 + series", \
     "" using 3 title "6.12.117 (mainline)"

# scaling.dat: cpus, then 5.10-series: data-file fork-exec libc, then
# 6.12-mainline: data-file fork-exec libc (bench-report sorts them so)
set output "scaling.png"
set title "Listeners on every CPU (perf record -a --buildid-mmap): what they add per mmap()"
set xlabel "guest CPUs"
set ylabel "guest instructions added per mmap()+munmap()"
unset style
set style data linespoints
set logscale x 2
set xrange [0.9:72]
set yrange [0:*]
set key bottom right
set xtics (1, 2, 4, 8, 16, 32, 64)
plot "scaling.dat" using 1:2 title "5.10.262 + series, data file", \
     "" using 1:5 title "6.12.117 (mainline), data file", \
     "" using 1:4 title "5.10.262 + series, libc", \
     "" using 1:7 title "6.12.117 (mainline), libc"
