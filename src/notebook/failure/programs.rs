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
}

const PROGRAMS: &[Program] = &[
    Program {
        name: "latex",
        debian: "texlive-latex-base",
        conda: Some("texlive-core"),
    },
    Program {
        name: "pdflatex",
        debian: "texlive-latex-base",
        conda: Some("texlive-core"),
    },
    Program {
        name: "xelatex",
        debian: "texlive-xetex",
        conda: Some("texlive-core"),
    },
    Program {
        name: "lualatex",
        debian: "texlive-luatex",
        conda: Some("texlive-core"),
    },
    Program {
        name: "dvipng",
        debian: "dvipng",
        conda: None,
    },
    Program {
        name: "dvips",
        debian: "texlive-base",
        conda: Some("texlive-core"),
    },
    Program {
        name: "kpsewhich",
        debian: "texlive-base",
        conda: Some("texlive-core"),
    },
    Program {
        name: "dot",
        debian: "graphviz",
        conda: Some("graphviz"),
    },
    Program {
        name: "neato",
        debian: "graphviz",
        conda: Some("graphviz"),
    },
    Program {
        name: "ffmpeg",
        debian: "ffmpeg",
        conda: Some("ffmpeg"),
    },
    Program {
        name: "avconv",
        debian: "libav-tools",
        conda: None,
    },
    Program {
        name: "gs",
        debian: "ghostscript",
        conda: Some("ghostscript"),
    },
    Program {
        name: "convert",
        debian: "imagemagick",
        conda: Some("imagemagick"),
    },
    Program {
        name: "magick",
        debian: "imagemagick",
        conda: Some("imagemagick"),
    },
    Program {
        name: "pandoc",
        debian: "pandoc",
        conda: Some("pandoc"),
    },
    Program {
        name: "inkscape",
        debian: "inkscape",
        conda: Some("inkscape"),
    },
    Program {
        name: "java",
        debian: "default-jre",
        conda: Some("openjdk"),
    },
    Program {
        name: "Rscript",
        debian: "r-base",
        conda: Some("r-base"),
    },
    Program {
        name: "R",
        debian: "r-base",
        conda: Some("r-base"),
    },
    Program {
        name: "git",
        debian: "git",
        conda: Some("git"),
    },
    Program {
        name: "wget",
        debian: "wget",
        conda: Some("wget"),
    },
    Program {
        name: "curl",
        debian: "curl",
        conda: Some("curl"),
    },
    Program {
        name: "unzip",
        debian: "unzip",
        conda: Some("unzip"),
    },
    Program {
        name: "mpirun",
        debian: "openmpi-bin",
        conda: Some("openmpi"),
    },
    Program {
        name: "nvidia-smi",
        debian: "nvidia-utils",
        conda: None,
    },
    Program {
        name: "tesseract",
        debian: "tesseract-ocr",
        conda: Some("tesseract"),
    },
    Program {
        name: "phantomjs",
        debian: "phantomjs",
        conda: Some("phantomjs"),
    },
];

/// The program named `name`, when nbenv knows what provides it.
pub fn known(name: &str) -> Option<&'static Program> {
    PROGRAMS.iter().find(|p| p.name == name)
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
