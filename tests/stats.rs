//! `warpsw search`'s statistics, ranking, filters and formats end to end,
//! on the CPU: E-values and bit scores, `--evalue`, `--max-target-seqs`,
//! `--stats` (fitted, fixed, fixed-fasta), `--format blast6|json|pairwise`,
//! `--columns`, bad input.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::hay::{self, warpsw, write};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A query and a database of 600 random sequences (enough for the fit) with
/// three homologs of the query planted at 90 %, 60 % and 40 % identity.
fn files(dir: &Path) -> (PathBuf, PathBuf) {
    let mut rng = hay::rng(31);
    let query = hay::random_codes(&mut rng, 200, false);
    let mut records: Vec<(String, String)> = (0..600)
        .map(|i| {
            let len = hay::skewed_length(&mut rng, 900).max(20);
            let codes = hay::random_codes(&mut rng, len, false);
            (
                format!("random{i} some description"),
                host::alphabet::decode_all(&codes),
            )
        })
        .collect();
    for (slot, identity) in [(100, 0.9), (300, 0.6), (500, 0.4)] {
        let codes = hay::mutate(&mut rng, &query, identity);
        records[slot] = (
            format!("planted{} homolog at {identity}", (identity * 100.0) as u32),
            host::alphabet::decode_all(&codes),
        );
    }
    let q = write(
        dir,
        "q.fa",
        &format!(">query the query\n{}\n", host::alphabet::decode_all(&query)),
    );
    (q, write(dir, "db.fa", &hay::fasta(&records)))
}

fn search(q: &Path, d: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["search", "-q", s(q), "-d", s(d), "--device", "cpu"];
    args.extend_from_slice(extra);
    warpsw(&args)
}

fn ok_text(out: Output) -> String {
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn blast6_has_blasts_twelve_columns_ranked_by_evalue() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let text = ok_text(search(
        &q,
        &d,
        &["--format", "blast6", "--evalue", "1e6", "--top", "50"],
    ));
    let rows = rows(&text);
    assert_eq!(rows.len(), 50);
    for r in &rows {
        assert_eq!(r.len(), 12, "{r:?}");
        assert_eq!(r[0], "query");
    }
    // The planted homologs first, most similar first, significant.
    let ids: Vec<&str> = rows.iter().take(3).map(|r| r[1].as_str()).collect();
    assert_eq!(ids, ["planted90", "planted60", "planted40"]);
    let evalue = |r: &Vec<String>| r[10].parse::<f64>().unwrap();
    assert!(evalue(&rows[2]) < 1e-10, "{:?}", rows[2]);
    // E-values ascending throughout; the unrelated ones not significant.
    for w in rows.windows(2) {
        assert!(evalue(&w[0]) <= evalue(&w[1]), "{w:?}");
    }
    assert!(evalue(&rows[3]) > 1e-3, "{:?}", rows[3]);
    // pident = 100 * identities / length, mismatches + gaps fit the length.
    let full = ok_text(search(
        &q,
        &d,
        &[
            "--format",
            "blast6",
            "--columns",
            "std,nident,gaps,qseq,sseq,score,cigar",
            "--top",
            "3",
        ],
    ));
    for r in self::rows(&full) {
        let length: usize = r[3].parse().unwrap();
        let nident: usize = r[12].parse().unwrap();
        let gaps: usize = r[13].parse().unwrap();
        let mismatch: usize = r[4].parse().unwrap();
        assert_eq!(
            r[2],
            format!("{:.3}", 100.0 * nident as f64 / length as f64)
        );
        assert_eq!(nident + mismatch + gaps, length, "{r:?}");
        assert_eq!(r[14].len(), length);
        assert_eq!(r[15].len(), length);
        assert!(r[14].contains('-') || r[15].contains('-') || gaps == 0);
    }
}

#[test]
fn evalue_filters_and_max_target_seqs_caps() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    // tsv prints E-values with 3 significant digits (blast6 prints whole
    // numbers from 10 on, too coarse to count the hits at the cut).
    let listed = |extra: &[&str]| {
        let mut args = vec!["--format", "tsv", "--columns", "sseqid,evalue"];
        args.extend_from_slice(extra);
        rows(&ok_text(search(&q, &d, &args)))[1..].to_vec()
    };
    let all = listed(&["--evalue", "1e9", "--top", "1000"]);
    assert_eq!(all.len(), 600);
    for cut in ["1e-3", "10"] {
        let kept = listed(&["--evalue", cut, "--top", "1000"]);
        let expected = all
            .iter()
            .filter(|r| r[1].parse::<f64>().unwrap() <= cut.parse::<f64>().unwrap())
            .count();
        // E-values printed with 3 digits: the count may differ at the cut only.
        assert!(
            kept.len().abs_diff(expected) <= 1,
            "{cut}: {} vs {expected}",
            kept.len()
        );
        assert_eq!(kept[..], all[..kept.len()]);
    }
    let two = listed(&["--max-target-seqs", "2"]);
    assert_eq!(two[..], all[..2]);
}

#[test]
fn tsv_json_and_pairwise_carry_the_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let tsv = ok_text(search(&q, &d, &[]));
    let lines: Vec<&str> = tsv.lines().collect();
    assert!(lines[0].starts_with("qseqid\tsseqid\tscore\tbitscore\tevalue\t"));
    assert!(lines[1].starts_with("query\tplanted90\t"));

    let json = ok_text(search(
        &q,
        &d,
        &[
            "--format",
            "json",
            "--columns",
            "sseqid,stitle,evalue,bitscore",
        ],
    ));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc[0]["qseqid"], "query");
    assert_eq!(doc[0]["statistics"]["method"], "fitted");
    assert_eq!(doc[0]["statistics"]["database"]["sequences"], 600);
    let hit = &doc[0]["hits"][0];
    assert_eq!(hit["sseqid"], "planted90");
    assert_eq!(hit["stitle"], "planted90 homolog at 0.9");
    assert!(hit["evalue"].as_f64().unwrap() < 1e-20);
    assert!(hit["bitscore"].as_f64().unwrap() > 100.0);

    let pairwise = ok_text(search(&q, &d, &["--format", "pairwise", "--top", "2"]));
    assert!(pairwise.contains("Database: 600 sequences"), "{pairwise}");
    assert!(pairwise.contains("Statistics: ") && pairwise.contains("Pearson 1998"));
    assert!(pairwise.contains("# 2: planted90") && pairwise.contains("# E-value: "));
    assert_eq!(pairwise.matches("#=======").count(), 4);
}

#[test]
fn fixed_statistics_use_the_published_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let json = ok_text(search(
        &q,
        &d,
        &["--format", "json", "--stats", "fixed", "--top", "1"],
    ));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let stats = &doc[0]["statistics"];
    assert_eq!(stats["method"], "fixed");
    assert_eq!(stats["parameters"]["lambda"], 0.267);
    assert_eq!(stats["parameters"]["k"], 0.041);
    let hit = &doc[0]["hits"][0];
    let score = hit["score"].as_f64().unwrap();
    let bits = (0.267 * score - 0.041f64.ln()) / std::f64::consts::LN_2;
    assert!((hit["bitscore"].as_f64().unwrap() - bits).abs() < 1e-9);
    // BLOSUM62 11/1 has the finite-size correction: blastp's E-value,
    // from the query's and the target's lengths.
    let spouge = host::stats::fixed_parameters("blosum62", 11, 1)
        .unwrap()
        .spouge
        .unwrap();
    assert_eq!(stats["parameters"]["spouge"]["sigma"], spouge.sigma);
    let (m, n) = (
        doc[0]["qlen"].as_u64().unwrap() as usize,
        hit["slen"].as_u64().unwrap() as usize,
    );
    let residues = stats["database"]["residues"].as_f64().unwrap();
    let e =
        spouge.ln_area(0.267, score as i32, m, n).exp() * 0.041 * (-0.267 * score).exp() * residues
            / n as f64;
    assert!((hit["evalue"].as_f64().unwrap() - e).abs() <= 1e-9 * e);

    // PAM30 15/3 has none: K·m'·n'·e^(−λS) over the edge-corrected space.
    let json = ok_text(search(
        &q,
        &d,
        &[
            "--format",
            "json",
            "--stats",
            "fixed",
            "--top",
            "1",
            "--matrix",
            "pam30",
            "--gap-open",
            "15",
            "--gap-extend",
            "3",
        ],
    ));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let stats = &doc[0]["statistics"];
    assert!(stats["parameters"]["spouge"].is_null());
    let (lambda, k) = (
        stats["parameters"]["lambda"].as_f64().unwrap(),
        stats["parameters"]["k"].as_f64().unwrap(),
    );
    let hit = &doc[0]["hits"][0];
    let score = hit["score"].as_f64().unwrap();
    let space = stats["search_space"].as_f64().unwrap();
    let e = k * space * (-lambda * score).exp();
    assert!((hit["evalue"].as_f64().unwrap() - e).abs() <= 1e-9 * e);
}

/// `--stats fixed-fasta`: FASTA's table, each pair's lengths shortened by
/// `ln(K·m·n)/H`, `E = N·P` over the database's sequences, as
/// `ssearch36 -z 3` (the printed values are checked against ssearch36's in
/// `host::stats`'s unit tests).
#[test]
fn fixed_fasta_statistics_use_fastas_table() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let out = search(
        &q,
        &d,
        &[
            "--format",
            "json",
            "--stats",
            "fixed-fasta",
            "--evalue",
            "1e6",
            "--top",
            "20",
        ],
    );
    assert!(
        stderr(&out)
            .contains("statistics fixed-fasta 1 (queries); E-values over the whole database"),
        "{}",
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_str(&ok_text(out)).unwrap();
    let stats = &doc[0]["statistics"];
    assert_eq!(stats["method"], "fixed-fasta");
    let p = &stats["parameters"];
    assert_eq!(
        (p["lambda"].as_f64(), p["k"].as_f64(), p["h"].as_f64()),
        (Some(0.275), Some(0.05), Some(0.25))
    );
    let summary = doc[0]["statistics_summary"].as_str().unwrap();
    assert!(
        summary.contains("ssearch36 -z 3") && summary.contains("E = 600 x P"),
        "{summary}"
    );
    let m = doc[0]["qlen"].as_f64().unwrap();
    let hits = doc[0]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 20);
    for hit in hits {
        let score = hit["score"].as_f64().unwrap();
        let n = hit["slen"].as_f64().unwrap();
        let edge = (0.05 * m * n).ln() / 0.25;
        let x = 0.05 * (m - edge).max(1.0) * (n - edge).max(1.0) * (-0.275 * score).exp();
        let p_value = if x > 0.01 { 1.0 - (-x).exp() } else { x };
        let e = hit["evalue"].as_f64().unwrap();
        // The table's numbers are held in single precision: within 1e-5.
        assert!((e / (600.0 * p_value) - 1.0).abs() < 1e-5, "{hit}");
        let bits = (m * n / x).log2();
        assert!(
            (hit["bitscore"].as_f64().unwrap() - bits).abs() < 1e-4,
            "{hit}"
        );
    }
    // The planted homologs first and significant, the rest not.
    let id = |i: usize| hits[i]["sseqid"].as_str().unwrap();
    assert_eq!(
        [id(0), id(1), id(2)],
        ["planted90", "planted60", "planted40"]
    );
    assert!(hits[2]["evalue"].as_f64().unwrap() < 1e-10);
    assert!(hits[3]["evalue"].as_f64().unwrap() > 1e-3);

    // Another row of the table; the pairwise output says which.
    let pairwise = ok_text(search(
        &q,
        &d,
        &[
            "--format",
            "pairwise",
            "--stats",
            "fixed-fasta",
            "--gap-open",
            "10",
            "--gap-extend",
            "1",
            "--top",
            "1",
        ],
    ));
    assert!(pairwise.contains("fixed-fasta") && pairwise.contains("lambda 0.255 K 0.035 H 0.19"));
    // No fit, so a database of two sequences has E-values too.
    let tiny = write(dir.path(), "tiny.fa", ">a\nMKVLAAGIVG\n>b\nWWWPPPKKL\n");
    let text = ok_text(search(
        &q,
        &tiny,
        &["--stats", "fixed-fasta", "--evalue", "1e6"],
    ));
    assert_eq!(text.lines().count(), 3, "{text}");
}

#[test]
fn fixed_fasta_refuses_what_fastas_table_lacks_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    // Above FASTA's table (ssearch36 -z 3 would use the ungapped λ, K).
    let err = refused(
        &q,
        &d,
        &[
            "--stats",
            "fixed-fasta",
            "--gap-open",
            "12",
            "--gap-extend",
            "1",
        ],
    );
    assert!(
        err.contains("fixed-fasta")
            && err.contains("gap open 12 / extend 1")
            && err.contains("11/1, 10/1"),
        "{err}"
    );
    // BLOSUM50 11/1: ssearch36 -z 3 would use BLOSUM62's parameters.
    let err = refused(&q, &d, &["--stats", "fixed-fasta", "--matrix", "blosum50"]);
    assert!(
        err.contains("blosum50 with gap open 11 / extend 1") && err.contains("10/2"),
        "{err}"
    );
    // FASTA's PAM250 is not NCBI's.
    let err = refused(
        &q,
        &d,
        &[
            "--stats",
            "fixed-fasta",
            "--matrix",
            "pam250",
            "--gap-open",
            "10",
            "--gap-extend",
            "2",
        ],
    );
    assert!(err.contains("unlike NCBI's"), "{err}");
}

/// Runs a search expected to fail with exit 2 and write nothing; returns
/// its stderr.
fn refused(q: &Path, d: &Path, extra: &[&str]) -> String {
    let dir = d.parent().unwrap();
    let out_path = dir.join("refused.tsv");
    let mut args = extra.to_vec();
    args.extend_from_slice(&["-o", s(&out_path)]);
    let out = search(q, d, &args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!out_path.exists());
    assert!(
        std::fs::read_dir(dir).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("refused")),
        "a temporary output was left"
    );
    stderr(&out)
}

#[test]
fn bad_statistics_options_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    for bad in ["-1", "NaN", "ten"] {
        let err = refused(&q, &d, &["--evalue", bad]);
        assert!(
            err.contains("--evalue") && err.contains("0 or more"),
            "{err}"
        );
    }
    let err = refused(&q, &d, &["--columns", "qseqid,sequence"]);
    assert!(
        err.contains("unknown column 'sequence'") && err.contains("pident"),
        "{err}"
    );
    let err = refused(&q, &d, &["--format", "pairwise", "--columns", "qseqid"]);
    assert!(err.contains("pairwise"), "{err}");
    let err = refused(
        &q,
        &d,
        &["--stats", "fixed", "--gap-open", "10", "--gap-extend", "3"],
    );
    assert!(
        err.contains("gap open 10 / extend 3") && err.contains("11/1"),
        "{err}"
    );
    // A matrix without local alignment statistics (every score positive)
    // could leave a query without E-values: refused, --stats none named.
    let letters = "A R N D C Q E G H I L K M F P S T W Y V B Z X *";
    let plus: String = letters
        .split(' ')
        .map(|l| format!("{l} {}\n", "2 ".repeat(24)))
        .collect();
    let matrix = write(dir.path(), "plus.mat", &format!("  {letters}\n{plus}"));
    let err = refused(&q, &d, &["--matrix-file", s(&matrix)]);
    assert!(err.contains("--stats none"), "{err}");
    // Without statistics there is nothing to cut or print by E-value.
    let err = refused(&q, &d, &["--stats", "none", "--evalue", "1"]);
    assert!(err.contains("--evalue"), "{err}");
    let err = refused(&q, &d, &["--stats", "none", "--columns", "qseqid,bitscore"]);
    assert!(err.contains("bitscore"), "{err}");
    let err = refused(&q, &d, &["--stats", "none", "--format", "blast6"]);
    assert!(err.contains("blast6"), "{err}");
}

/// A FASTA file of `count` random sequences of 20 to 900 residues (seeded),
/// with the 433-residue query planted at 70 % identity in the middle.
fn random_database(dir: &Path, name: &str, count: usize, query: &[u8]) -> PathBuf {
    let mut rng = hay::rng(count as u64);
    let mut records: Vec<(String, String)> = (0..count)
        .map(|i| {
            let len = hay::skewed_length(&mut rng, 900).max(20);
            let codes = hay::random_codes(&mut rng, len, false);
            (format!("random{i}"), host::alphabet::decode_all(&codes))
        })
        .collect();
    let homolog = hay::mutate(&mut rng, query, 0.7);
    records[count / 2] = ("planted".into(), host::alphabet::decode_all(&homolog));
    write(dir, name, &hay::fasta(&records))
}

/// A 1-, a 2- and a 433-residue query, at gap costs without published
/// parameters (and 0/1, whose scores grow almost linearly), against
/// databases of 5, 1,500 and 20,000 sequences: every query gets its hits
/// (no E-value cut, so that the peptides' hits show), each hit's score is
/// the reference's, each query's statistics are said, and a query whose
/// database scores cannot be fitted is named on stderr with how it was
/// estimated instead.
#[test]
fn statistics_never_cost_a_search() {
    use host::reference::local_score;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = hay::rng(433);
    let long = hay::random_codes(&mut rng, 433, false);
    let queries: [(&str, Vec<u8>); 3] = [
        ("one", vec![0]),
        ("two", vec![8, 17]),
        ("long", long.clone()),
    ];
    let text: String = queries
        .iter()
        .map(|(id, c)| format!(">{id}\n{}\n", host::alphabet::decode_all(c)))
        .collect();
    let q = write(dir.path(), "q.fa", &text);
    let mut fell_back = std::collections::BTreeSet::new();
    for count in [5, 1_500, 20_000] {
        let d = random_database(dir.path(), &format!("db{count}.fa"), count, &long);
        let db = host::fasta::read_fasta(&d).unwrap();
        for (open, extend) in [(0, 1), (3, 3), (40, 3), (5, 2)] {
            let scoring = hay::blosum62(open, extend);
            let (o, e) = (open.to_string(), extend.to_string());
            let out = search(
                &q,
                &d,
                &[
                    "--gap-open",
                    &o,
                    "--gap-extend",
                    &e,
                    "--evalue",
                    "1e300",
                    "--top",
                    "3",
                    "--format",
                    "json",
                    "--columns",
                    "sseqid,score,evalue",
                ],
            );
            let err = stderr(&out);
            assert!(out.status.success(), "{count} {open}/{extend}: {err}");
            let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let doc = doc.as_array().unwrap();
            assert_eq!(doc.len(), 3);
            for (report, (id, codes)) in doc.iter().zip(&queries) {
                let hits = report["hits"].as_array().unwrap();
                assert_eq!(hits.len(), 3.min(count), "{id} {count} {open}/{extend}");
                for hit in hits {
                    let target = hit["sseqid"].as_str().unwrap();
                    let record = db.iter().find(|r| r.id == target).unwrap();
                    let expected = local_score(codes, &record.codes, &scoring.matrix, scoring.gaps);
                    assert_eq!(hit["score"], expected, "{id} against {target}");
                    let evalue = hit["evalue"].as_f64().unwrap();
                    assert!(evalue.is_finite() && evalue >= 0.0, "{evalue}");
                }
                let statistics = &report["statistics"];
                let method = statistics["method"].as_str().unwrap();
                if let Some(why) = statistics["fallback"].as_str() {
                    assert!(why.contains("cannot be fitted"), "{why}");
                    assert!(
                        err.contains(&format!("got {method} statistics")) && err.contains(id),
                        "{err}"
                    );
                    fell_back.insert(method.to_string());
                } else {
                    assert_eq!(method, "fitted");
                }
            }
            // The planted homolog is the long query's best hit.
            assert_eq!(doc[2]["hits"][0]["sseqid"], "planted");
        }
    }
    // Both fallbacks without published parameters ran somewhere in the
    // grid (the published parameters' is the unit test
    // `a_query_that_cannot_be_fitted_falls_back_in_turn`'s).
    assert_eq!(
        fell_back.into_iter().collect::<Vec<_>>(),
        ["simulated", "ungapped"],
    );
}

/// `--stats none`: the k best raw scores, ties in database order (the same
/// set `merge::top_hits` takes), no statistics in any format.
#[test]
fn stats_none_reports_the_best_raw_scores() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let text = ok_text(search(&q, &d, &["--stats", "none", "--top", "25"]));
    let header = text.lines().next().unwrap();
    assert!(
        !header.contains("evalue") && !header.contains("bitscore"),
        "{header}"
    );
    assert!(header.starts_with("qseqid\tsseqid\tscore"), "{header}");
    let db = host::fasta::read_fasta(&d).unwrap();
    let query = &host::fasta::read_fasta(&q).unwrap()[0].codes;
    let scoring = hay::blosum62(11, 1);
    let scores: Vec<i32> = db
        .iter()
        .map(|r| host::reference::local_score(query, &r.codes, &scoring.matrix, scoring.gaps))
        .collect();
    let expected: Vec<(String, i32)> = host::merge::top_hits(&scores, 25)
        .iter()
        .map(|h| (db[h.target].id.clone(), h.score))
        .collect();
    let got: Vec<(String, i32)> = rows(&text)
        .iter()
        .skip(1)
        .map(|r| (r[1].clone(), r[2].parse().unwrap()))
        .collect();
    assert_eq!(got, expected);
    let json = ok_text(search(&q, &d, &["--stats", "none", "--format", "json"]));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(doc[0]["statistics"].is_null());
    assert!(doc[0]["hits"][0].get("evalue").is_none());
    let pairwise = ok_text(search(&q, &d, &["--stats", "none", "--format", "pairwise"]));
    assert!(pairwise.contains("Statistics: none"), "{pairwise}");
    let tabular = ok_text(search(
        &q,
        &d,
        &[
            "--stats",
            "none",
            "--format",
            "blast6",
            "--columns",
            "qseqid,sseqid,score",
        ],
    ));
    assert_eq!(tabular.lines().count(), 10);
    // Asking for more hits than there are sequences reserves nothing more.
    let all = ok_text(search(
        &q,
        &d,
        &["--stats", "none", "--top", &u64::MAX.to_string()],
    ));
    assert_eq!(all.lines().count(), 1 + 600);
}

#[test]
fn evalues_rank_length_in_not_raw_scores() {
    // A longer unrelated sequence scores higher by chance: ranked by
    // E-value, some hit follows one with a lower raw score.
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let text = ok_text(search(
        &q,
        &d,
        &[
            "--format",
            "blast6",
            "--columns",
            "sseqid,slen,score,evalue",
            "--evalue",
            "1e9",
            "--top",
            "100",
        ],
    ));
    let rows = rows(&text);
    let score = |r: &Vec<String>| r[2].parse::<i32>().unwrap();
    let inverted = rows.windows(2).any(|w| score(&w[0]) < score(&w[1]));
    assert!(inverted, "E-value order equals score order: {text}");
    // Ascending as printed (values that print alike need not be tied; the
    // tie rule is tested by `merge::rank_by_evalue`'s unit test).
    for w in rows.windows(2) {
        let (a, b) = (
            w[0][3].parse::<f64>().unwrap(),
            w[1][3].parse::<f64>().unwrap(),
        );
        assert!(a <= b, "{w:?}");
    }
}

#[test]
fn a_wsw_database_gives_the_same_hits_and_titles() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let wsw = dir.path().join("db.wsw");
    let out = warpsw(&["makedb", s(&d), "-o", s(&wsw)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let columns = ["--columns", "std,stitle", "--format", "blast6"];
    let from_fasta = ok_text(search(&q, &d, &columns));
    assert_eq!(ok_text(search(&q, &wsw, &columns)), from_fasta);
    assert!(
        from_fasta.contains("\tplanted90 homolog at 0.9\n"),
        "{from_fasta}"
    );
}
