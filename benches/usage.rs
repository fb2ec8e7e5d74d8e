//! Benchmark of `nbenv usage`'s work (read + analyze) per notebook, on the fixtures and on a
//! generated corpus of realistic notebooks. Run through `scripts/bench-usage`.
//!
//! Options: `--corpus N` (default 1000), `--seed S`, `--fixture-runs R` (default 200),
//! `--keep DIR` (write the corpus there instead of a temporary directory), `--dir DIR`
//! (measure the notebooks under DIR instead: a real corpus, or one kept earlier; fixtures and
//! generation are skipped), `--repeat K` (measure the corpus K times, for profiling).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nbenv::notebook::{self, AnalyzeOptions};
use serde_json::{json, Value};

fn main() {
    let mut corpus_size = 1000usize;
    let mut seed = 42u64;
    let mut fixture_runs = 200usize;
    let mut keep: Option<PathBuf> = None;
    let mut existing: Option<PathBuf> = None;
    let mut repeat = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--corpus" => {
                corpus_size = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--corpus N")
            }
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).expect("--seed S"),
            "--fixture-runs" => {
                fixture_runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--fixture-runs R")
            }
            "--keep" => keep = Some(PathBuf::from(args.next().expect("--keep DIR"))),
            "--dir" => existing = Some(PathBuf::from(args.next().expect("--dir DIR"))),
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--repeat K")
            }
            _ => {} // cargo passes `--bench`
        }
    }
    let options = AnalyzeOptions::default();
    if let Some(dir) = existing {
        let mut paths = Vec::new();
        collect(&dir, &mut paths);
        paths.retain(|p| notebook::read(p).is_ok());
        paths.sort();
        println!("{} readable notebooks under {}", paths.len(), dir.display());
        measure(&paths, &options, repeat);
        return;
    }

    // ---- fixtures: every readable fixture, many runs each
    let fixtures_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notebooks");
    let mut fixtures = Vec::new();
    collect(&fixtures_dir, &mut fixtures);
    fixtures.retain(|p| notebook::read(p).is_ok());
    fixtures.sort();
    println!(
        "fixtures: {} notebooks, {fixture_runs} runs each (read + analyze)",
        fixtures.len()
    );
    let mut all = Vec::new();
    for path in &fixtures {
        let mut times = Vec::with_capacity(fixture_runs);
        for _ in 0..fixture_runs {
            let t = Instant::now();
            let nb = notebook::read(path).unwrap();
            let u = notebook::analyze(&nb, &options);
            std::hint::black_box(&u);
            times.push(t.elapsed());
        }
        times.sort();
        println!(
            "  {:<32} median {:>8}  p95 {:>8}",
            path.strip_prefix(&fixtures_dir).unwrap().display(),
            fmt(pct(&times, 50)),
            fmt(pct(&times, 95))
        );
        all.extend(times);
    }
    all.sort();
    println!(
        "  all fixtures: median {}  p95 {}",
        fmt(pct(&all, 50)),
        fmt(pct(&all, 95))
    );

    // ---- generated corpus
    let tmp;
    let dir = match &keep {
        Some(d) => {
            std::fs::create_dir_all(d).unwrap();
            d.clone()
        }
        None => {
            tmp = tempfile::tempdir().unwrap();
            tmp.path().to_path_buf()
        }
    };
    let mut rng = Rng(seed);
    let mut paths = Vec::with_capacity(corpus_size);
    let mut bytes = Vec::with_capacity(corpus_size);
    let mut code_lines = Vec::with_capacity(corpus_size);
    for i in 0..corpus_size {
        // a few notebooks per directory, like a repository
        let sub = dir.join(format!("repo{:03}", i / 10));
        std::fs::create_dir_all(&sub).unwrap();
        let (nb, lines) = generate(&mut rng);
        let text = serde_json::to_string_pretty(&nb).unwrap();
        let path = sub.join(format!("nb{i:04}.ipynb"));
        std::fs::write(&path, &text).unwrap();
        bytes.push(text.len());
        code_lines.push(lines);
        paths.push(path);
    }
    bytes.sort();
    code_lines.sort();
    println!(
        "\ncorpus: {corpus_size} generated notebooks (seed {seed}) in {}\n  file size median {} KB, p95 {} KB; code lines median {}, p95 {}",
        dir.display(),
        pct(&bytes, 50) / 1024,
        pct(&bytes, 95) / 1024,
        pct(&code_lines, 50),
        pct(&code_lines, 95),
    );
    measure(&paths, &options, repeat);
}

/// Reads and analyses every notebook once to warm caches, then `repeat` times measured.
fn measure(paths: &[PathBuf], options: &AnalyzeOptions, repeat: usize) {
    for p in paths {
        let nb = notebook::read(p).unwrap();
        std::hint::black_box(notebook::analyze(&nb, options));
    }
    let n = paths.len() * repeat;
    let mut total = Vec::with_capacity(n);
    let mut read = Vec::with_capacity(n);
    let mut analyze = Vec::with_capacity(n);
    let started = Instant::now();
    let mut apis = 0usize;
    for _ in 0..repeat {
        for p in paths {
            let t0 = Instant::now();
            let nb = notebook::read(p).unwrap();
            let t1 = Instant::now();
            let u = notebook::analyze(&nb, options);
            let t2 = Instant::now();
            apis += u.apis.len();
            std::hint::black_box(&u);
            read.push(t1 - t0);
            analyze.push(t2 - t1);
            total.push(t2 - t0);
        }
    }
    let wall = started.elapsed();
    for v in [&mut total, &mut read, &mut analyze] {
        v.sort();
    }
    let mut s = String::new();
    let _ = writeln!(s, "  one core, sequential; per notebook:");
    for (name, v) in [
        ("read + analyze", &total),
        ("read (file + JSON)", &read),
        ("analyze", &analyze),
    ] {
        let _ = writeln!(
            s,
            "  {name:<20} median {:>8}  p95 {:>8}  max {:>8}",
            fmt(pct(v, 50)),
            fmt(pct(v, 95)),
            fmt(*v.last().unwrap())
        );
    }
    let _ = writeln!(
        s,
        "  throughput {:.0} notebooks/s; {:.1} APIs per notebook",
        n as f64 / wall.as_secs_f64(),
        apis as f64 / n as f64
    );
    print!("{s}");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("ipynb" | "py"))
            && !p.components().any(|c| c.as_os_str() == "mylib")
            && p.file_name().is_some_and(|n| n != "helpers.py")
        {
            out.push(p);
        }
    }
}

fn pct<T: Copy>(sorted: &[T], p: usize) -> T {
    let i = ((sorted.len() - 1) * p + 50) / 100;
    sorted[i.min(sorted.len() - 1)]
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const IMPORTS: &[&str] = &[
    "import numpy as np",
    "import pandas as pd",
    "import matplotlib.pyplot as plt",
    "import seaborn as sns",
    "from sklearn.model_selection import train_test_split",
    "from sklearn.cross_validation import cross_val_score",
    "from sklearn.ensemble import RandomForestClassifier",
    "from sklearn.linear_model import LogisticRegression",
    "from sklearn.metrics import accuracy_score, confusion_matrix",
    "from sklearn.preprocessing import StandardScaler",
    "import tensorflow as tf",
    "from keras.models import Sequential",
    "from keras.layers import Dense, Dropout, LSTM",
    "import torch\nimport torch.nn as nn",
    "import os\nimport sys\nimport json",
    "from collections import Counter, defaultdict",
    "import re",
    "from scipy import stats",
    "import xgboost as xgb",
    "import nltk",
    "from tqdm import tqdm",
    "import requests",
];

/// Code cells in the style of data-science notebooks; `{v}` is a fresh variable suffix.
const CELLS: &[&str] = &[
    "df{v} = pd.read_csv('data/train_{v}.csv', sep=',', index_col=0)\ndf{v}.head()",
    "df{v}.describe()\ndf{v}.info()\ndf{v}.isnull().sum()",
    "df{v} = df{v}.dropna(subset=['target'])\ndf{v}['age'] = df{v}['age'].fillna(df{v}['age'].median())\ndf{v}.ix[:10, ['age', 'target']]",
    "X{v} = df{v}.drop('target', axis=1).values\ny{v} = df{v}['target'].values\nX_train, X_test, y_train, y_test = train_test_split(X{v}, y{v}, test_size=0.25, random_state=42)",
    "scaler = StandardScaler()\nX_train = scaler.fit_transform(X_train)\nX_test = scaler.transform(X_test)",
    "clf{v} = RandomForestClassifier(n_estimators=200, max_depth=8, n_jobs=-1)\nclf{v}.fit(X_train, y_train)\npred = clf{v}.predict(X_test)\nprint(accuracy_score(y_test, pred))",
    "lr{v} = LogisticRegression(C=0.5, solver='liblinear')\nscores = cross_val_score(lr{v}, X_train, y_train, cv=5)\nprint('CV accuracy: %.3f (+/- %.3f)' % (scores.mean(), scores.std() * 2))",
    "fig, ax = plt.subplots(figsize=(12, 6))\nax.plot(df{v}.index, df{v}['value'], label='value')\nax.set_title('Value over time')\nax.legend()\nplt.show()",
    "sns.heatmap(df{v}.corr(), annot=True, cmap='coolwarm')\nplt.figure(figsize=(10, 4))\nsns.distplot(df{v}['age'].dropna(), bins=30)",
    "def clean_text(s):\n    s = s.lower()\n    s = re.sub(r'[^a-z0-9 ]', ' ', s)\n    tokens = [t for t in s.split() if len(t) > 2]\n    return ' '.join(tokens)\n\ndf{v}['text'] = df{v}['text'].apply(clean_text)",
    "model{v} = Sequential()\nmodel{v}.add(LSTM(128, input_shape=(timesteps, features), return_sequences=True))\nmodel{v}.add(Dropout(0.3))\nmodel{v}.add(Dense(1, activation='sigmoid'))\nmodel{v}.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])\nhistory = model{v}.fit(X_train, y_train, epochs=20, batch_size=64, validation_split=0.1)",
    "x = tf.placeholder(tf.float32, [None, 784])\nW = tf.Variable(tf.zeros([784, 10]))\ny = tf.nn.softmax(tf.matmul(x, W))\nwith tf.Session() as sess:\n    sess.run(tf.global_variables_initializer())\n    print(sess.run(y, feed_dict={x: batch}))",
    "class Net{v}(nn.Module):\n    def __init__(self):\n        super(Net{v}, self).__init__()\n        self.fc = nn.Linear(100, 10)\n\n    def forward(self, x):\n        return torch.relu(self.fc(x))\n\nnet = Net{v}()\nopt = torch.optim.Adam(net.parameters(), lr=1e-3)",
    "for epoch in range(10):\n    for xb, yb in loader:\n        opt.zero_grad()\n        loss = criterion(net(xb), yb)\n        loss.backward()\n        opt.step()\n    print(f'epoch {epoch}: {loss.item():.4f}')",
    "counts = Counter(w for doc in docs for w in doc.split())\ncommon = counts.most_common(20)\nwith open('vocab_{v}.json', 'w') as f:\n    json.dump(dict(common), f)",
    "dtrain = xgb.DMatrix(X_train, label=y_train)\nparams = {'max_depth': 6, 'eta': 0.1, 'objective': 'binary:logistic'}\nbst = xgb.train(params, dtrain, num_boost_round=100)\nbst.predict(xgb.DMatrix(X_test))",
    "%matplotlib inline\n%load_ext autoreload\n%autoreload 2",
    "!pip install -q xgboost==0.90 lightgbm",
    "%time result{v} = df{v}.groupby('group').agg({'value': ['mean', 'std']})",
    "for i in tqdm(range(len(urls))):\n    r = requests.get(urls[i], timeout=5)\n    if r.status_code == 200:\n        pages.append(r.text)",
    "t, p = stats.ttest_ind(a{v}, b{v})\nprint('t = %.3f, p = %.4f' % (t, p))",
    "print \"accuracy:\", acc\nfor k, v in sorted(results.iteritems()):\n    print k, v",
    "cm = confusion_matrix(y_test, pred)\nplt.imshow(cm, interpolation='nearest', cmap=plt.cm.Blues)\nplt.colorbar()\nplt.xticks(np.arange(2), ['neg', 'pos'])",
    "arr{v} = np.random.randn(1000, 3)\nmeans = arr{v}.mean(axis=0)\nnorm = np.linalg.norm(arr{v} - means, axis=1)\nnorm.argsort()[-10:]",
];

const MARKDOWN: &[&str] = &[
    "## Data loading\n\nWe load the raw CSV files and look at the first rows.",
    "### Feature engineering\n\n* fill missing ages with the median\n* one-hot encode the categorical columns",
    "## Model\n\nA random forest is a strong baseline for tabular data.",
    "Results look reasonable; the validation accuracy is close to the training accuracy.",
];

fn lines_of(s: &str) -> Value {
    let parts: Vec<String> = s.split_inclusive('\n').map(str::to_owned).collect();
    json!(parts)
}

/// One notebook: 8–146 cells (median about 40), about a third markdown, outputs with text,
/// some images (5–150 KB of base64) and the odd error.
fn generate(rng: &mut Rng) -> (Value, usize) {
    let n_cells =
        8 + rng.below(30) + rng.below(30) + if rng.chance(15) { rng.below(80) } else { 0 };
    let mut cells = Vec::with_capacity(n_cells);
    let mut code_lines = 0;
    let mut imports = String::new();
    for _ in 0..3 + rng.below(6) {
        imports.push_str(rng.pick(IMPORTS));
        imports.push('\n');
    }
    code_lines += imports.lines().count();
    cells.push(json!({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": lines_of(imports.trim_end())}));
    for i in 0..n_cells {
        if rng.chance(30) {
            cells.push(json!({"cell_type": "markdown", "metadata": {}, "source": lines_of(rng.pick(MARKDOWN))}));
            continue;
        }
        let v = rng.below(5).to_string();
        let src = rng.pick(CELLS).replace("{v}", &v);
        code_lines += src.lines().count();
        let mut outputs = Vec::new();
        if rng.chance(50) {
            let text: String = (0..1 + rng.below(8))
                .map(|k| {
                    format!(
                        "epoch {k}: loss {:.4} - acc {:.4}\n",
                        rng.below(1000) as f64 / 1000.0,
                        rng.below(1000) as f64 / 1000.0
                    )
                })
                .collect();
            outputs
                .push(json!({"name": "stdout", "output_type": "stream", "text": lines_of(&text)}));
        }
        if rng.chance(15) {
            let size = 5_000 + rng.below(145_000);
            let png: String = (0..size)
                .map(|k| (b'A' + ((k * 7 + size) % 26) as u8) as char)
                .collect();
            outputs.push(json!({"data": {"image/png": png, "text/plain": ["<Figure size 864x432 with 1 Axes>"]}, "metadata": {"needs_background": "light"}, "output_type": "display_data"}));
        }
        if rng.chance(4) {
            outputs.push(json!({"ename": "KeyError", "evalue": "'target'", "output_type": "error", "traceback": [
                "\u{1b}[0;31mKeyError\u{1b}[0m                                  Traceback (most recent call last)",
                "\u{1b}[0;32m/usr/local/lib/python3.6/dist-packages/pandas/core/indexes/base.py\u{1b}[0m in \u{1b}[0;36mget_loc\u{1b}[0;34m(self, key, method, tolerance)\u{1b}[0m",
                "\u{1b}[0;31mKeyError\u{1b}[0m: 'target'"]}));
        }
        cells.push(json!({"cell_type": "code", "execution_count": i + 2, "metadata": {}, "outputs": outputs, "source": lines_of(&src)}));
    }
    let nb = json!({
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                              "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                              "pygments_lexer": "ipython3", "version": "3.6.8"}
        },
        "nbformat": 4,
        "nbformat_minor": 2
    });
    (nb, code_lines)
}
