;;; eglot.el --- eglot against `codekeep serve', headless -*- lexical-binding: t -*-
;;
;; Run by tests/editors/test_emacs.py as
;;   emacs --batch -l SNIPPET.el -l eglot.el FILE
;; SNIPPET.el being docs/editors.md's eglot snippet: opens FILE (in a git repository), starts eglot on
;; it, waits until workspace/symbol answers, asks for hover at line 17 column 9, and
;; prints what eglot received as lines the test reads:
;;   SERVER <name>            the server eglot connected to
;;   FORMATS <formats>        the hover contentFormat eglot offered
;;   SYMBOL <name> <uri>      each workspace/symbol answer
;;   HOVER <kind>             the hover's markup kind, then its text between
;;   HOVER-TEXT ... END       markers

(require 'package)
(package-initialize)  ; Debian's elpa-eglot on Emacs 28; built in from Emacs 29
(require 'eglot)
(require 'python)

(setq eglot-sync-connect t
      eglot-connect-timeout 120
      eglot-autoshutdown t)

(defun codekeep-test--wait (what thunk)
  "Call THUNK every half second until it returns non-nil (WHAT names it on failure)."
  (let ((answer nil) (tries 0))
    (while (and (null answer) (< tries 240))
      (setq answer (funcall thunk) tries (1+ tries))
      (unless answer (accept-process-output nil 0.5)))
    (or answer (error "No answer to %s" what))))

(let* ((file (car command-line-args-left))
       (buffer (find-file-noselect file)))
  (with-current-buffer buffer
    (python-mode)
    (apply #'eglot (eglot--guess-contact))  ; eglot-ensure waits for the command loop
    (let ((server (codekeep-test--wait "the connection" #'eglot-current-server)))
      (princ (format "SERVER %s\n" (plist-get (eglot--server-info server) :name)))
      (let* ((capabilities (eglot-client-capabilities server))
             (hover (plist-get (plist-get capabilities :textDocument) :hover)))
        (princ (format "FORMATS %S\n" (plist-get hover :contentFormat))))
      (seq-doseq (symbol (codekeep-test--wait
                          "workspace/symbol"
                          (lambda () (let ((found (jsonrpc-request server :workspace/symbol
                                                                   '(:query "Circle"))))
                                       (and (> (length found) 0) found)))))
        (princ (format "SYMBOL %s %s\n" (plist-get symbol :name)
                       (plist-get (plist-get symbol :location) :uri))))
      (goto-char (point-min))
      (forward-line 16)
      (move-to-column 9)
      (let* ((hover (jsonrpc-request server :textDocument/hover
                                     (eglot--TextDocumentPositionParams)))
             (contents (plist-get hover :contents)))
        (princ (format "HOVER %s\nHOVER-TEXT\n%s\nEND\n" (plist-get contents :kind)
                       (plist-get contents :value))))
      (eglot-shutdown server))))
