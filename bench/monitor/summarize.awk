# Turns the monitor benchmark's raw runs into its markdown table and the
# "targets" section (used by bench/monitor.bench.sh; POSIX awk, mawk works).
# Input: the cases file (tab-separated: id, label, kind, memory MiB, bytes,
# total processes, max concurrent). Variables: raw = the raw CSV of runs
# (case,config,run,exit_status,wall_s,cpu_s,memory_mb,bytes_read_mb,
# bytes_written_mb,total_processes,max_concurrent_processes,reaped_cpu_s,self_cpu_s),
# configs = the configurations run, "none" first.
# Every measure is the median over runs; error = (median - truth) / truth.
# CPU truth is the run's own: the CPU time the program measured itself
# (getrusage) in that very run. Time ratios are paired: each run's wall time
# over the no-monitor wall time of the same round, then the median.

function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    if (n == 0) return ""
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# Half the range of a list, in % of its median: how much runs of one
# configuration differ by themselves (the noise floor of a ratio).
function spread(list,    n, v, i, lo, hi, m) {
    n = split(list, v, " ")
    if (n < 2) return ""
    lo = hi = v[1] + 0
    for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
    m = median(list)
    return m > 0 ? (hi - lo) / 2 / m * 100 : ""
}
# The list of wall(config, round) / wall(none, same round) over rounds.
function paired_ratios(id, cfg,    n, r, i, list, key, base) {
    key = id SUBSEP cfg; base = id SUBSEP "none"; list = ""
    n = split(runs_of[key], r, " ")
    for (i = 1; i <= n; i++)
        if ((base, r[i]) in run_wall && run_wall[base, r[i]] > 0)
            list = list " " (run_wall[key, r[i]] / run_wall[base, r[i]])
    return list
}
# Their median.
function paired_ratio(id, cfg) { return median(paired_ratios(id, cfg)) }
# "median [min … max] (n)" of a list, with a printf format for the values.
function with_range(list, format,    n, v, i, lo, hi) {
    n = split(list, v, " ")
    if (n == 0) return "–"
    lo = hi = v[1] + 0
    for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
    return sprintf(format " [" format " … " format "] (n=%d)", median(list), lo, hi, n)
}
function pct(value, truth) { return (value - truth) / truth * 100 }
function fmt_pct(e) { return sprintf("%+.2f%%", e) }
function abs(x) { return x < 0 ? -x : x }

# Records one measure of a cell: its text, and whether it is within target.
function measure(cfg, label, value, truth, as_count,    e, text) {
    if (value == "") { cell_text = cell_text sep label "n/a"; sep = " · "; cell_ok = 0; return }
    e = pct(value, truth)
    if (as_count) {
        text = label value (value == truth ? "" : " (" fmt_pct(e) ")")
    } else {
        text = label fmt_pct(e)
    }
    cell_text = cell_text sep text; sep = " · "
    if (abs(e) > 1) cell_ok = 0
}
function concurrency(value, bound) {
    if (value == "") { cell_text = cell_text sep "max n/a"; sep = " · "; cell_ok = 0; return }
    cell_text = cell_text sep "max " value; sep = " · "
    if (value + 0 > bound) cell_ok = 0
}

function fail_note(cfg, failed) {
    return failed ? sprintf(" (%d run(s) failed)", failed) : ""
}

BEGIN {
    FS = "\t"
    ncfg = split(configs, cfg_list, " ")
    title["tally1"] = "tally L1"; title["tally2"] = "tally L2"
    title["rm"] = "resource_monitor"; title["rm_acc"] = "rm --accurate-short-processes"
    title["time"] = "time -v"
    while ((getline line < raw) > 0) {
        if (line ~ /^case,/) continue
        split(line, f, ",")
        key = f[1] SUBSEP f[2]
        if (f[4] != 0) failed[key]++
        else {
            # A failed run has no trustworthy measures; only good runs count.
            wall[key] = wall[key] " " f[5]
            run_wall[key, f[3]] = f[5]
            runs_of[key] = runs_of[key] " " f[3]
            if (f[6] != "") cpu[key] = cpu[key] " " f[6]
            if (f[7] != "") mem[key] = mem[key] " " f[7]
            if (f[8] != "") rd[key] = rd[key] " " f[8]
            if (f[9] != "") wr[key] = wr[key] " " f[9]
            if (f[10] != "") tp[key] = tp[key] " " f[10]
            if (f[11] != "") mc[key] = mc[key] " " f[11]
            if (f[12] != "") reaped[key] = reaped[key] " " f[12]
            # tally's own CPU in this run: all it reaped minus the task's CPU
            # time from its summary (exact: the kernel's totals).
            if (f[2] ~ /^tally/ && f[12] != "" && f[6] != "") own[key] = own[key] " " (f[12] - f[6])
            # The same run's own getrusage as the truth: no run-to-run noise.
            if (f[6] != "" && f[13] > 0) same_run[key] = same_run[key] " " pct(f[6], f[13])
            if (f[13] > 0) self_cpu[key] = self_cpu[key] " " f[13]
        }
    }
    header = "| case | truth | no monitor: wall |"
    rule = "|---|---|---:|"
    for (c = 2; c <= ncfg; c++) {
        header = header " " title[cfg_list[c]] ": error | ratio |"
        rule = rule "---|---:|"
    }
    print header
    print rule
}

{
    id = $1; label = $2; kind = $3; t_mem = $4; t_bytes = $5; t_procs = $6; t_conc = $7
    ids[++ncase] = id; kinds[id] = kind; labels[id] = label
    base = id SUBSEP "none"
    base_wall = median(wall[base])
    base_walls[id] = base_wall
    t_cpu = median(cpu[base])
    noise[id] = spread(wall[base])
    if (kind == "cpu") {
        truth = sprintf("each run's own getrusage; no monitor: %.3f s CPU ±%.1f%%", t_cpu, spread(cpu[base]))
        if (reaped[base] != "") truth = truth sprintf(" (whole process: %.3f s)", median(reaped[base]))
    }
    else if (kind == "mem") truth = t_mem " MiB"
    else if (kind == "io") truth = sprintf("%g MiB r+w", t_bytes / 1048576)
    else if (kind == "tree") truth = t_mem " MiB, " t_procs " procs"
    else if (kind == "loop") truth = t_procs " procs, max " t_conc
    else truth = sprintf("%.2f MiB r+w, %d procs", t_bytes / 1048576, t_procs)
    row = "| " label " | " truth " | " (base_wall == "" ? "failed" : sprintf("%.3f s ±%.1f%%", base_wall, noise[id])) " |"
    for (c = 2; c <= ncfg; c++) {
        cfg = cfg_list[c]; key = id SUBSEP cfg
        cell_text = ""; sep = ""; cell_ok = 1
        if (wall[key] == "") {
            row = row " failed | – |"; ok[id, cfg] = 0; ratio[id, cfg] = ""
            continue
        }
        if (kind == "cpu") {
            e = median(same_run[key])
            if (e == "") { cell_text = "n/a"; cell_ok = 0 }
            else {
                cell_text = fmt_pct(e)
                if (abs(e) > 1) cell_ok = 0
            }
            if (cpu[key] != "") cell_text = cell_text sprintf(" (vs no-monitor runs: %s)", fmt_pct(pct(median(cpu[key]), t_cpu)))
        }
        else if (kind == "mem") measure(cfg, "", median(mem[key]), t_mem, 0)
        else if (kind == "io") {
            measure(cfg, "r ", median(rd[key]), t_bytes / 1048576, 0)
            measure(cfg, "w ", median(wr[key]), t_bytes / 1048576, 0)
        } else if (kind == "tree") {
            measure(cfg, "mem ", median(mem[key]), t_mem, 0)
            measure(cfg, "procs ", median(tp[key]), t_procs, 1)
            measure(cfg, "max ", median(mc[key]), t_conc, 1)
        } else if (kind == "loop") {
            measure(cfg, "procs ", median(tp[key]), t_procs, 1)
            concurrency(median(mc[key]), 3)
        } else {
            measure(cfg, "r ", median(rd[key]), t_bytes / 1048576, 0)
            measure(cfg, "w ", median(wr[key]), t_bytes / 1048576, 0)
            measure(cfg, "procs ", median(tp[key]), t_procs, 1)
        }
        if (failed[key]) cell_ok = 0
        ok[id, cfg] = cell_ok
        r = paired_ratio(id, cfg)
        ratio[id, cfg] = r
        row = row " " cell_text fail_note(cfg, failed[key]) " | " (r == "" ? "–" : sprintf("%.3f", r)) " |"
    }
    print row
}

# Table 4 as CPU: what the monitor itself costs, less sensitive to a busy
# machine than wall time. tally: its own CPU in each run (all the shell
# reaped minus the task's exact CPU time from tally's summary), median.
# Others, whose task CPU is not exact: median CPU reaped for monitor + task
# minus the median for the task alone (carries run-to-run noise).
function own_cpu_table(    i, c, id, cfg, line, base, row, key) {
    print "### CPU used by the monitor itself (s)"
    print ""
    print "tally: its own CPU in the same run (CPU the shell reaped for tally and the"
    print "task, minus the task's CPU time in tally's summary), median over runs; in"
    print "brackets, as a share of the no-monitor wall time. Others: median CPU reaped"
    print "for monitor + task minus the median for the task alone (run-to-run noise"
    print "included, hence negative values)."
    print ""
    line = "| case | no monitor: task CPU |"; row = "|---|---:|"
    for (c = 2; c <= ncfg; c++) { line = line " " title[cfg_list[c]] " |"; row = row "---:|" }
    print line; print row
    for (i = 1; i <= ncase; i++) {
        id = ids[i]; base = median(reaped[id SUBSEP "none"])
        if (base == "") continue
        line = "| " labels[id] " | " sprintf("%.3f", base) " |"
        for (c = 2; c <= ncfg; c++) {
            cfg = cfg_list[c]; key = id SUBSEP cfg
            if (own[key] != "")
                line = line " " sprintf("%.3f (%.2f%%)", median(own[key]),
                                        base_walls[id] > 0 ? median(own[key]) / base_walls[id] * 100 : 0) " |"
            else
                line = line " " (reaped[key] == "" ? "–" : sprintf("%+.3f", median(reaped[key]) - base)) " |"
        }
        print line
    }
    print ""
}

# The short-process loop with its spread (issue 11): every paired round's
# ratio, as median [min … max], and tally's own CPU the same way.
function loop_table(    i, c, id, cfg, key) {
    for (i = 1; i <= ncase; i++) {
        id = ids[i]
        if (kinds[id] != "loop") continue
        print "### " labels[id] ": paired rounds, with their spread"
        print ""
        print "Each round runs every configuration once, in rotated order; a round's"
        print "ratio is its wall time over the same round's no-monitor wall time."
        print "Shown: median [min … max] over the rounds (n). Own CPU: tally's CPU in"
        print "that run (all it and the task used, minus the task's exact CPU time)."
        print ""
        print "| configuration | wall ratio to no monitor | own CPU (s) |"
        print "|---|---:|---:|"
        print "| no monitor | wall " with_range(wall[id SUBSEP "none"], "%.3f") " s | – |"
        for (c = 2; c <= ncfg; c++) {
            cfg = cfg_list[c]; key = id SUBSEP cfg
            print "| " title[cfg] " | " with_range(paired_ratios(id, cfg), "%.3f") " | " \
                  (own[key] == "" ? "–" : with_range(own[key], "%.3f")) " |"
        }
        print ""
    }
}

# One target over some rows for one tally level: "met" or the rows that miss it.
function target(text, cfg, rows_kind, what, limit,    i, id, miss, n, bad) {
    if (!(cfg in has_cfg)) { printf "- %s: not measured (%s not run)\n", text, cfg; return }
    miss = ""; n = 0
    for (i = 1; i <= ncase; i++) {
        id = ids[i]
        if (rows_kind == "long" && !(base_walls[id] >= 1)) continue
        if (rows_kind == "loop" && kinds[id] != "loop") continue
        if (rows_kind == "l1" && kinds[id] != "cpu" && kinds[id] != "io" && kinds[id] != "mem") continue
        n++
        if (what == "error") bad = !ok[id, cfg]
        else bad = ratio[id, cfg] == "" || ratio[id, cfg] > limit
        if (bad) miss = miss (miss == "" ? "" : "; ") labels[id] (what == "ratio" ? sprintf(" (%s; no-monitor runs ±%.1f%%)", ratio[id, cfg] == "" ? "failed" : sprintf("%.3f", ratio[id, cfg]), noise[id]) : "")
    }
    if (n == 0) printf "- %s: no such rows in this run\n", text
    else if (miss == "") printf "- %s: **met** (%d rows)\n", text, n
    else printf "- %s: **not met** — %s\n", text, miss
}

END {
    for (c = 2; c <= ncfg; c++) has_cfg[cfg_list[c]] = 1
    print ""
    print "Error: median of what the monitor reported over the runs, against the truth"
    print "(CPU: the CPU time the program measured itself with getrusage in that very"
    print "run; memory: MiB filled; I/O: bytes read and written (r, w); processes:"
    print "started in all (procs) and most at once (max))."
    print "CPU truth is per run because this machine's CPU speed varies from run to"
    print "run (the ± after the no-monitor CPU time is half the range of those runs):"
    print "the same program's CPU time differs by more than the 1% to be resolved."
    print "In brackets, the error against the median of the no-monitor runs instead,"
    print "which carries that noise. \"Whole process\" is the CPU time the shell got"
    print "from wait4 for the no-monitor runs (exec and exit included, 1 ms resolution)."
    print "Ratio: the median over rounds of the wall time under the monitor over the"
    print "wall time with no monitor in the same round (configurations run one after"
    print "another, their order rotated each round). The ± after the no-monitor wall"
    print "time is half the range of those runs: a ratio is not resolved more finely."
    print "time -v cannot count processes (n/a); its memory is the largest single"
    print "process's maximum RSS, its bytes are block-layer 512-byte blocks (File system"
    print "inputs/outputs). resource_monitor reports whole MB (truncated) and polls"
    print "every 5 s by default."
    print ""
    own_cpu_table()
    loop_table()
    print "## Targets (issues 2 and 11), computed from the numbers above"
    print ""
    target("level 2: error within ±1% on every row (1000-process loop: max concurrency ≤ 3)", "tally2", "all", "error")
    target("level 1: error within ±1% on CPU, I/O and single-process memory rows", "tally1", "l1", "error")
    target("level 2: time ratio ≤ 1.01 on every row whose baseline is ≥ 1 s", "tally2", "long", "ratio", 1.01)
    target("level 1: time ratio ≤ 1.01 on every row whose baseline is ≥ 1 s", "tally1", "long", "ratio", 1.01)
    target("level 2: time ratio ≤ 1.15 on the 1000-short-process loop", "tally2", "loop", "ratio", 1.15)
    target("level 1: time ratio ≤ 1.15 on the 1000-short-process loop", "tally1", "loop", "ratio", 1.15)
}
