//! Programs notebooks run that no Python package installs, and what installs them: a run
//! that stops because one is missing is the environment's, but not one a resolution can
//! repair, so the message says where the program comes from.

/// A program outside Python's packages, and the system packages that provide it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    pub name: &'static str,
    /// Debian's (and Ubuntu's) package.
    pub debian: &'static str,
    /// conda-forge's package, when there is one.
    pub conda: Option<&'static str>,
    /// A distribution on PyPI that ships a build of the program, when there is one.
    pub pypi: Option<PyPiBuild>,
}

/// A program's build shipped inside a distribution's wheel: imageio-ffmpeg carries a static
/// ffmpeg (`imageio_ffmpeg/binaries/ffmpeg-linux64-v4.2.2`). An environment that installs it
/// gets the program in its `bin/` under its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PyPiBuild {
    pub dist: &'static str,
    /// The folder in `site-packages` that holds the binary.
    pub folder: &'static str,
    /// How the binary's file name starts.
    pub prefix: &'static str,
    /// The oldest Python the distribution installs on.
    pub min_python: (u8, u8),
}

const PROGRAMS: &[Program] = &[
    Program {
        name: "latex",
        debian: "texlive-latex-base",
        conda: Some("texlive-core"),
        pypi: None,
    },
    Program {
        name: "pdflatex",
        debian: "texlive-latex-base",
        conda: Some("texlive-core"),
        pypi: None,
    },
    Program {
        name: "xelatex",
        debian: "texlive-xetex",
        conda: Some("texlive-core"),
        pypi: None,
    },
    Program {
        name: "lualatex",
        debian: "texlive-luatex",
        conda: Some("texlive-core"),
        pypi: None,
    },
    Program {
        name: "dvipng",
        debian: "dvipng",
        conda: None,
        pypi: None,
    },
    Program {
        name: "dvips",
        debian: "texlive-base",
        conda: Some("texlive-core"),
        pypi: None,
    },
    Program {
        name: "kpsewhich",
        debian: "texlive-base",
        conda: Some("texlive-core"),
        pypi: None,
    },
    Program {
        name: "dot",
        debian: "graphviz",
        conda: Some("graphviz"),
        pypi: None,
    },
    Program {
        name: "neato",
        debian: "graphviz",
        conda: Some("graphviz"),
        pypi: None,
    },
    Program {
        name: "ffmpeg",
        debian: "ffmpeg",
        conda: Some("ffmpeg"),
        pypi: Some(PyPiBuild {
            dist: "imageio-ffmpeg",
            folder: "imageio_ffmpeg/binaries",
            prefix: "ffmpeg-",
            min_python: (3, 5),
        }),
    },
    Program {
        name: "avconv",
        debian: "libav-tools",
        conda: None,
        pypi: None,
    },
    Program {
        name: "gs",
        debian: "ghostscript",
        conda: Some("ghostscript"),
        pypi: None,
    },
    Program {
        name: "convert",
        debian: "imagemagick",
        conda: Some("imagemagick"),
        pypi: None,
    },
    Program {
        name: "magick",
        debian: "imagemagick",
        conda: Some("imagemagick"),
        pypi: None,
    },
    Program {
        name: "pandoc",
        debian: "pandoc",
        conda: Some("pandoc"),
        pypi: None,
    },
    Program {
        name: "inkscape",
        debian: "inkscape",
        conda: Some("inkscape"),
        pypi: None,
    },
    Program {
        name: "java",
        debian: "default-jre",
        conda: Some("openjdk"),
        pypi: None,
    },
    Program {
        name: "Rscript",
        debian: "r-base",
        conda: Some("r-base"),
        pypi: None,
    },
    Program {
        name: "R",
        debian: "r-base",
        conda: Some("r-base"),
        pypi: None,
    },
    Program {
        name: "git",
        debian: "git",
        conda: Some("git"),
        pypi: None,
    },
    Program {
        name: "wget",
        debian: "wget",
        conda: Some("wget"),
        pypi: None,
    },
    Program {
        name: "curl",
        debian: "curl",
        conda: Some("curl"),
        pypi: None,
    },
    Program {
        name: "unzip",
        debian: "unzip",
        conda: Some("unzip"),
        pypi: None,
    },
    Program {
        name: "mpirun",
        debian: "openmpi-bin",
        conda: Some("openmpi"),
        pypi: None,
    },
    Program {
        name: "nvidia-smi",
        debian: "nvidia-utils",
        conda: None,
        pypi: None,
    },
    Program {
        name: "tesseract",
        debian: "tesseract-ocr",
        conda: Some("tesseract"),
        pypi: None,
    },
    Program {
        name: "phantomjs",
        debian: "phantomjs",
        conda: Some("phantomjs"),
        pypi: None,
    },
];

/// The program named `name`, when nbenv knows what provides it.
pub fn known(name: &str) -> Option<&'static Program> {
    PROGRAMS.iter().find(|p| p.name == name)
}

/// The programs a distribution on PyPI ships a build of.
pub fn from_pypi() -> impl Iterator<Item = (&'static Program, &'static PyPiBuild)> {
    PROGRAMS
        .iter()
        .filter_map(|p| p.pypi.as_ref().map(|b| (p, b)))
}

impl Program {
    /// `Debian: texlive-latex-base; conda: texlive-core`.
    pub fn providers(&self) -> String {
        match self.conda {
            Some(conda) => format!(
                "Debian: apt-get install {}; conda: conda install -c conda-forge {conda}",
                self.debian
            ),
            None => format!("Debian: apt-get install {}", self.debian),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_programs_name_their_packages() {
        assert_eq!(known("latex").unwrap().debian, "texlive-latex-base");
        assert_eq!(
            known("dot").unwrap().providers(),
            "Debian: apt-get install graphviz; conda: conda install -c conda-forge graphviz"
        );
        assert_eq!(known("data.csv"), None);
    }
}
