"""OBS Studio itself as a publisher: Debian's obs-studio 29 run headless under Xvfb with Mesa's software GL.

A throwaway HOME holds global.ini (no first-run wizard, no exit prompt), a profile whose service is a custom RTMP
server (Advanced output: x264 with the README's recommended settings, or OBS's defaults) and a scene collection with
one media source looping a clip made with ffmpeg (testsrc2 + a sine). `obs --startstreaming` publishes at once; SIGINT
stops it cleanly. 640x360@30 keeps llvmpipe within about a core.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional

OBS = shutil.which("obs") or "/usr/bin/obs"
XVFB = shutil.which("Xvfb") or "/usr/bin/Xvfb"


def unavailable() -> Optional[str]:
    """Why OBS cannot run here, or None."""
    for tool in (OBS, XVFB):
        if not os.path.exists(tool):
            return f"{tool} is not installed (the Makefile installs obs-studio and xvfb)"
    return None


# README's recommended settings (keyframe interval 1 s, tune zerolatency, bframes=0), or OBS's own defaults.
ENCODERS = {
    "readme": {"rate_control": "CBR", "bitrate": 1500, "keyint_sec": 1, "preset": "veryfast",
               "profile": "high", "tune": "zerolatency", "x264opts": "bframes=0"},
    "defaults": {"rate_control": "CBR", "bitrate": 1500},
}


def _ini(sections: dict[str, dict[str, object]]) -> str:
    return "".join(f"[{name}]\n" + "".join(f"{k}={v}\n" for k, v in values.items()) + "\n"
                   for name, values in sections.items())


def _scene_item(name: str) -> dict:
    return {"name": name, "id": 1, "visible": True, "locked": False, "rot": 0.0, "align": 5,
            "pos": {"x": 0.0, "y": 0.0}, "scale": {"x": 1.0, "y": 1.0}, "bounds": {"x": 0.0, "y": 0.0},
            "bounds_type": 0, "bounds_align": 0, "crop_left": 0, "crop_top": 0, "crop_right": 0, "crop_bottom": 0,
            "scale_filter": "disable", "private_settings": {}}


class OBSPublisher:
    """OBS streaming `clip` (looped) to `server`/`key` until `stop()`; `log()` is OBS's own log."""

    def __init__(self, workdir: Path, server: str, key: str, *, encoder: str = "readme", size: str = "640x360",
                 clip_seconds: int = 20):
        self.workdir = workdir
        self.home = workdir / "obs-home"
        shutil.rmtree(self.home, ignore_errors=True)
        width, height = size.split("x")
        clip = workdir / "obs-clip.mp4"
        if not clip.exists():
            subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
                            "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30",
                            "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000",
                            "-t", str(clip_seconds), "-c:v", "libx264", "-preset", "veryfast", "-g", "30",
                            "-pix_fmt", "yuv420p", "-c:a", "aac", str(clip)], check=True, timeout=120)
        config = self.home / ".config" / "obs-studio"
        profile = config / "basic" / "profiles" / "Sluice"
        scenes = config / "basic" / "scenes"
        profile.mkdir(parents=True)
        scenes.mkdir(parents=True)
        (config / "global.ini").write_text(_ini({
            "General": {"FirstRun": "true", "LastVersion": 486539266, "EnableAutoUpdates": "false"},
            "BasicWindow": {"ConfirmOnExit": "false", "WarnBeforeStartingStream": "false",
                            "WarnBeforeStoppingStream": "false", "SysTrayEnabled": "false"},
            "Basic": {"Profile": "Sluice", "ProfileDir": "Sluice", "SceneCollection": "Sluice",
                      "SceneCollectionFile": "Sluice"},
        }))
        (profile / "basic.ini").write_text(_ini({
            "General": {"Name": "Sluice"},
            "Output": {"Mode": "Advanced", "Reconnect": "true", "RetryDelay": 2},
            "AdvOut": {"Encoder": "obs_x264", "TrackIndex": 1, "ApplyServiceSettings": "false",
                       "RecType": "Standard", "FFOutputToFile": "true"},
            "Video": {"BaseCX": width, "BaseCY": height, "OutputCX": width, "OutputCY": height,
                      "FPSType": 0, "FPSCommon": 30, "ScaleType": "bilinear"},
            "Audio": {"SampleRate": 48000, "ChannelSetup": "Stereo"},
        }))
        (profile / "streamEncoder.json").write_text(json.dumps(ENCODERS[encoder]))
        (profile / "service.json").write_text(json.dumps(
            {"type": "rtmp_custom", "settings": {"server": server, "key": key, "use_auth": False}}))
        (scenes / "Sluice.json").write_text(json.dumps({
            "name": "Sluice", "current_scene": "Scene", "current_program_scene": "Scene",
            "scene_order": [{"name": "Scene"}], "groups": [], "transitions": [],
            "sources": [
                {"id": "scene", "versioned_id": "scene", "name": "Scene", "enabled": True, "mixers": 0,
                 "settings": {"id_counter": 1, "custom_size": False, "items": [_scene_item("clip")]}},
                {"id": "ffmpeg_source", "versioned_id": "ffmpeg_source", "name": "clip", "enabled": True,
                 "mixers": 255, "volume": 1.0, "monitoring_type": 0,
                 "settings": {"local_file": str(clip), "is_local_file": True, "looping": True,
                              "restart_on_activate": False, "close_when_inactive": False}},
            ],
        }))
        self.log_path = workdir / "obs.log"
        self._log = open(self.log_path, "wb")
        env = {**os.environ, "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
               "LIBGL_ALWAYS_SOFTWARE": "1", "QT_QPA_PLATFORM": "xcb"}
        display = f":{90 + os.getpid() % 400}"
        self.xvfb = subprocess.Popen([XVFB, display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        env["DISPLAY"] = display
        self.cmd = [OBS, "--multi", "--startstreaming", "--profile", "Sluice", "--collection", "Sluice",
                    "--scene", "Scene", "--minimize-to-tray", "--disable-updater", "--disable-shutdown-check"]
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=env, cwd=str(self.home))

    def stop(self, sig: int = signal.SIGINT) -> Optional[int]:
        code = None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                code = self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                code = self.proc.wait(5)
        else:
            code = self.proc.returncode
        if self.xvfb.poll() is None:
            self.xvfb.terminate()
            try:
                self.xvfb.wait(5)
            except subprocess.TimeoutExpired:
                self.xvfb.kill()
        self._log.close()
        return code

    def log(self) -> str:
        """OBS's console output and its newest log file."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        logs = sorted((self.home / ".config" / "obs-studio" / "logs").glob("*.txt"))
        return text + ("\n--- " + logs[-1].name + "\n" + logs[-1].read_text(errors="replace") if logs else "")
