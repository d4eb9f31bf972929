"""Electronics: telephone, lamp, camera, headphones, calculator, laptop, radio, fan, microphone.

Each is the most recognisable everyday form of its kind (a desk phone with handset and keypad, an
articulated desk lamp, an open laptop...), with its buttons, screen or grille towards −Y.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import trimesh
from PIL import Image, ImageDraw, ImageFont

from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes.common import BLACK_PLASTIC, CHROME, FACE_UP, Z_TO_MINUS_Y, front_extrude, merge
from tabletest.assets.builtin.shapes import (
    arc,
    box,
    cylinder,
    decal,
    ellipsoid,
    extrude,
    lathe,
    loop,
    moved,
    rounded_rect,
    tube,
    uv_sphere,
)


def _side_extrude(outline_yz: list[tuple[float, float]], width: float) -> trimesh.Trimesh:
    """A solid from a side outline in (y, z), `width` along x centred on x = 0 (wedge-shaped bodies)."""
    return moved(extrude(outline_yz, width), offset=(-width / 2, 0, 0), rotate_deg=(90, 0, 90))


def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _keypad_texture(labels: list[list[str]], key_colours: dict[str, tuple[int, int, int]], panel=(30, 30, 32),
                    key=(225, 225, 220), ink=(20, 20, 20), px: int = 64, top_px: int = 0,
                    top_colour=(150, 170, 140)) -> Image.Image:
    """A grid of labelled keys on a panel; an optional display band `top_px` high above them."""
    rows, cols = len(labels), len(labels[0])
    img = Image.new("RGB", (cols * px, rows * px + top_px), panel)
    draw = ImageDraw.Draw(img)
    if top_px:
        draw.rounded_rectangle((px * 0.15, top_px * 0.2, cols * px - px * 0.15, top_px * 0.85), radius=6,
                               fill=top_colour)
        draw.text((cols * px - px * 0.3, top_px * 0.52), "1234.56", fill=(25, 30, 25), font=_font(int(top_px * 0.45)),
                  anchor="rm")
    for r, row in enumerate(labels):
        for c, label in enumerate(row):
            x0, y0 = c * px, top_px + r * px
            draw.rounded_rectangle((x0 + px * 0.1, y0 + px * 0.12, x0 + px * 0.9, y0 + px * 0.88), radius=px // 8,
                                   fill=key_colours.get(label, key))
            draw.text((x0 + px / 2, y0 + px / 2), label, fill=ink, font=_font(int(px * 0.45)), anchor="mm")
    return img


def telephone() -> list[Part]:
    """A push-button desk phone: wedge body, keypad on the slope, handset in its cradle, coiled cord."""
    red = Material("telephone red", (0.72, 0.06, 0.05), roughness=0.3)
    body = _side_extrude([(-0.10, 0.0), (0.10, 0.0), (0.10, 0.075), (0.02, 0.075), (-0.10, 0.03)], 0.20)
    cradles = merge(moved(box((0.045, 0.065, 0.012), bottom_z=0.072), (-0.075, 0.055, 0)),
                     moved(box((0.045, 0.065, 0.012), bottom_z=0.072), (0.075, 0.055, 0)))
    slope = np.degrees(np.arctan2(0.045, 0.12))
    keys = [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"], ["*", "0", "#"]]
    keypad = moved(decal(0.075, 0.095), (0, -0.04 - 0.0008, 0.0525 + 0.001), rotate_deg=(slope - 90, 0, 0))
    x = np.linspace(-0.085, 0.085, 15)
    grip = tube(np.stack([x, np.full_like(x, 0.055), 0.108 + 0.01 * (1 - (x / 0.085) ** 2)], 1), 0.013, sections=14)
    cups = merge(*(moved(lathe([(0, 0), (0.024, 0), (0.027, 0.012), (0.02, 0.026), (0, 0.028)], 28),
                          (sx * 0.075, 0.055, 0.084)) for sx in (-1, 1)))
    t = np.linspace(0, 1, 420)
    centre = np.stack([-0.095 - 0.05 * np.sin(np.pi * t), 0.055 - 0.09 * t, 0.09 - 0.075 * t], 1)
    coil = centre + 0.006 * np.stack([np.zeros_like(t), np.cos(t * 2 * np.pi * 22), np.sin(t * 2 * np.pi * 22)], 1)
    return [
        Part("body", body, red),
        Part("cradles", cradles, red),
        Part("keypad", keypad, Material("keypad", (1, 1, 1), roughness=0.4,
                                         texture=_keypad_texture(keys, {}, panel=(35, 35, 35)))),
        Part("handset", merge(grip, cups), red),
        Part("cord", tube(coil, 0.0018, sections=6), Material("cord", (0.55, 0.05, 0.04), roughness=0.4)),
    ]


def lamp() -> list[Part]:
    """An articulated desk lamp: round base, two-piece arm with joints, conical shade with a bulb."""
    paint = Material("lamp paint", (0.1, 0.42, 0.55), roughness=0.35, metallic=0.2)
    base = lathe([(0, 0), (0.085, 0), (0.085, 0.012), (0.07, 0.025), (0.02, 0.03), (0, 0.03)], 48)
    elbow = (0.02, 0.0, 0.25)
    tip = (0.17, 0.0, 0.32)
    arms = []
    for a, b in (((-0.045, 0.0, 0.03), elbow), (elbow, tip)):
        for dy in (-0.012, 0.012):
            arms.append(tube(np.linspace(np.add(a, (0, dy, 0)), np.add(b, (0, dy, 0)), 4), 0.0045, sections=10))
    joints = merge(*(moved(cylinder(0.012, 0.04, 20), (p[0], 0.02, p[2]), rotate_deg=(90, 0, 0))
                      for p in ((-0.045, 0, 0.035), elbow, tip)))
    outer = [(0.0, 0.0), (0.022, 0.0), (0.028, -0.035), (0.05, -0.08), (0.078, -0.13)]
    inner = [(0.074, -0.128), (0.047, -0.08), (0.025, -0.036), (0.0, -0.036)]
    tilt, at = (0, -28, 0), (tip[0] + 0.01, 0, tip[2] + 0.015)
    return [
        Part("base", base, paint),
        Part("arm", merge(*arms), CHROME),
        Part("joints", joints, BLACK_PLASTIC),
        Part("shade", moved(lathe(outer, 40), at, tilt), paint),
        Part("shade lining", moved(lathe(inner, 40), at, tilt), Material("lining", (0.93, 0.93, 0.9), roughness=0.6)),
        Part("bulb", moved(moved(uv_sphere(0.024, 12, 24), (0, 0, -0.075)), at, tilt),
             Material("bulb", (1.0, 0.95, 0.7), roughness=0.2)),
    ]


def camera() -> list[Part]:
    """A black DSLR seen lens-first: rounded body, pentaprism hump, grip, big lens with glass and rings."""
    body = extrude(rounded_rect(0.13, 0.045, 0.012), 0.075)
    hump = _side_extrude([(-0.025, 0.0), (0.02, 0.0), (0.012, 0.025), (-0.012, 0.025)], 0.045)
    grip = moved(extrude(rounded_rect(0.032, 0.03, 0.012), 0.07), (-0.045, -0.03, 0.0))
    lens_x, lens_z, front = 0.01, 0.036, -0.0225
    barrel = moved(lathe([(0, 0), (0.031, 0), (0.031, 0.006), (0.028, 0.008), (0.028, 0.05), (0.03, 0.052),
                          (0.03, 0.058), (0.0, 0.058)], 40), (lens_x, front, lens_z), Z_TO_MINUS_Y)
    ring = moved(lathe([(0.03, 0), (0.0315, 0), (0.0315, 0.014), (0.03, 0.014)], 40), (lens_x, front - 0.02, lens_z),
                 Z_TO_MINUS_Y)
    glass = moved(decal(0.044, 0.044, elliptical=True), (lens_x, front - 0.0585, lens_z))
    mount = moved(lathe([(0.033, 0), (0.034, 0), (0.034, 0.004), (0.033, 0.004)], 40), (lens_x, front + 0.001, lens_z),
                  Z_TO_MINUS_Y)
    button = moved(cylinder(0.006, 0.005, 16), (-0.045, -0.012, 0.075))
    dial = moved(cylinder(0.011, 0.007, 20), (0.042, 0.004, 0.075))
    return [
        Part("body", merge(body, moved(hump, (lens_x, 0, 0.075)), grip), BLACK_PLASTIC),
        Part("lens", barrel, Material("lens barrel", (0.06, 0.06, 0.065), roughness=0.35)),
        Part("lens rings", merge(ring, mount), CHROME),
        Part("lens glass", glass, Material("glass", (0.08, 0.12, 0.25), roughness=0.05, metallic=0.6)),
        Part("buttons", merge(button, dial), CHROME),
    ]


def headphones() -> list[Part]:
    """Over-ear headphones standing on their cups: arched headband, padded crown, two ear cups."""
    r, cz = 0.095, 0.085
    band = tube(arc(r, -8, 188, points=40) + (0, 0, cz), 0.0055, sections=10)
    pad = tube(arc(r - 0.007, 50, 130, points=20) + (0, 0, cz), 0.012, sections=12)
    cup_profile = [(0, 0), (0.036, 0), (0.043, 0.006), (0.045, 0.02), (0.042, 0.03), (0.0, 0.032)]
    cups, cushions, caps = [], [], []
    for side in (-1, 1):
        turn = (0, 90 * side, 0)  # the cup's outside faces away from the head
        at = (side * 0.083, 0, 0.05)
        cups.append(moved(lathe(cup_profile, 40), at, turn))
        t = np.linspace(0, 2 * np.pi, 16)
        ring = np.stack([0.033 + 0.011 * np.cos(t), -0.002 - 0.011 * np.sin(t)], 1)
        cushions.append(moved(lathe(ring, 40), at, turn))
        caps.append(moved(lathe([(0, 0), (0.026, 0), (0.026, 0.004), (0, 0.004)], 32), np.add(at, (side * 0.03, 0, 0)),
                          turn))
    return [
        Part("headband", band, Material("band metal", (0.6, 0.61, 0.63), roughness=0.3, metallic=1.0)),
        Part("band pad", pad, Material("band pad", (0.08, 0.08, 0.08), roughness=0.7)),
        Part("ear cups", merge(*cups), Material("cup", (0.72, 0.08, 0.1), roughness=0.35)),
        Part("cushions", merge(*cushions), Material("cushion", (0.05, 0.05, 0.05), roughness=0.8)),
        Part("cup caps", merge(*caps), CHROME),
    ]


def calculator() -> list[Part]:
    """A pocket desk calculator lying flat: a thin wedge with display and labelled keys on top."""
    keys = [["C", "%", "√", "÷"], ["7", "8", "9", "×"], ["4", "5", "6", "−"], ["1", "2", "3", "+"],
            ["0", ".", "±", "="]]
    operators = {k: (120, 120, 125) for k in ("%", "√", "÷", "×", "−", "+", "±")}
    colours = {"C": (240, 130, 40), "=": (240, 130, 40)} | operators
    texture = _keypad_texture(keys, colours, panel=(45, 45, 50), key=(215, 215, 210), top_px=96)
    length, low, high = 0.15, 0.008, 0.016
    body = _side_extrude([(-length / 2, 0.0), (length / 2, 0.0), (length / 2, high), (-length / 2, low)], 0.085)
    slope = np.degrees(np.arctan2(high - low, length))
    face = moved(decal(0.08, 0.145), (0, 0, (low + high) / 2 + 0.0006), rotate_deg=(slope - 90, 0, 0))
    return [
        Part("body", body, Material("calculator case", (0.16, 0.16, 0.18), roughness=0.5)),
        Part("keys and display", face, Material("keys", (1, 1, 1), roughness=0.45, texture=texture)),
    ]


def _keyboard_texture() -> Image.Image:
    """The laptop's deck seen from above: rows of black keys, a space bar and a trackpad on aluminium."""
    w, h = 640, 420
    img = Image.new("RGB", (w, h), (190, 192, 196))
    draw = ImageDraw.Draw(img)
    key, gap, x0, y0 = 40, 4, 28, 16
    for row in range(5):
        for col in range(14):
            x, y = x0 + col * (key + gap), y0 + row * (key + gap)
            draw.rounded_rectangle((x, y, x + key, y + key - 6), radius=5, fill=(28, 28, 30))
    y = y0 + 5 * (key + gap)
    draw.rounded_rectangle((x0 + 4 * (key + gap), y, x0 + 10 * (key + gap) - gap, y + key - 6), radius=5,
                           fill=(28, 28, 30))
    draw.rounded_rectangle((w / 2 - 110, 290, w / 2 + 110, 405), radius=10, fill=(172, 174, 178),
                           outline=(150, 152, 156), width=2)
    return img


def _screen_texture() -> Image.Image:
    """A lit desktop: blue gradient wallpaper, two windows, a task bar, inside a black bezel."""
    w, h = 640, 420
    ramp = np.linspace(0, 1, h)[:, None, None]
    wall = (np.array([40, 110, 210]) * (1 - ramp) + np.array([110, 190, 240]) * ramp).astype(np.uint8)
    img = Image.fromarray(np.broadcast_to(wall, (h, w, 3)).copy())
    draw = ImageDraw.Draw(img)
    draw.rectangle((60, 60, 360, 280), fill=(245, 245, 245), outline=(90, 90, 90))
    draw.rectangle((60, 60, 360, 82), fill=(70, 80, 95))
    for i in range(6):
        draw.rectangle((80, 100 + i * 26, 330 - (i % 3) * 40, 112 + i * 26), fill=(160, 165, 175))
    draw.rectangle((300, 150, 580, 340), fill=(250, 250, 252), outline=(90, 90, 90))
    draw.rectangle((300, 150, 580, 172), fill=(200, 70, 60))
    draw.rectangle((0, h - 30, w, h), fill=(30, 35, 45))
    framed = Image.new("RGB", (w + 40, h + 40), (12, 12, 14))
    framed.paste(img, (20, 20))
    return framed


def laptop() -> list[Part]:
    """An open laptop: keyboard deck with trackpad, the lid tilted back and its lit screen facing −Y."""
    aluminium = Material("aluminium", (0.72, 0.73, 0.75), roughness=0.35, metallic=0.8)
    width, depth, thick = 0.32, 0.22, 0.015
    base = extrude(rounded_rect(width, depth, 0.012), thick)
    deck = moved(decal(0.3, 0.2), (0, -0.002, thick + 0.0005), FACE_UP)
    tilt, hinge = (-18, 0, 0), (0, depth / 2 - 0.004, thick)
    lid = moved(moved(box((width, 0.006, 0.215)), (0, 0.003, 0)), hinge, tilt)
    screen = moved(moved(decal(0.31, 0.205), (0, -0.0005, 0.1075)), hinge, tilt)
    return [
        Part("base", base, aluminium),
        Part("keyboard", deck, Material("keyboard", (1, 1, 1), roughness=0.5, texture=_keyboard_texture())),
        Part("lid", lid, aluminium),
        Part("screen", screen, Material("screen", (1, 1, 1), roughness=0.15, texture=_screen_texture())),
    ]


def _grille_texture() -> Image.Image:
    """A round speaker cloth: dark dots in rows on silver."""
    img = Image.new("RGB", (256, 256), (175, 172, 165))
    draw = ImageDraw.Draw(img)
    for y in range(8, 256, 14):
        for x in range(8 + (y // 14 % 2) * 7, 256, 14):
            draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=(40, 40, 40))
    return img


def _dial_texture() -> Image.Image:
    """A tuning scale: cream panel, tick marks, station numbers and a red needle."""
    img = Image.new("RGB", (400, 200), (238, 226, 190))
    draw = ImageDraw.Draw(img)
    for i, mhz in enumerate(range(88, 110, 4)):
        x = 30 + i * 68
        draw.text((x, 60), str(mhz), fill=(40, 30, 20), font=_font(30), anchor="mm")
    for x in range(30, 375, 17):
        draw.line((x, 100, x, 120 if x % 34 else 135), fill=(40, 30, 20), width=3)
    draw.line((30, 100, 370, 100), fill=(40, 30, 20), width=3)
    draw.line((215, 25, 215, 180), fill=(220, 30, 20), width=6)
    return img


def radio() -> list[Part]:
    """A retro portable radio: rounded case, round speaker grille, tuning dial, knobs, handle, antenna."""
    width, height, depth = 0.25, 0.15, 0.08
    case = moved(front_extrude(rounded_rect(width, height, 0.03), depth), (0, 0, height / 2))
    front = -depth / 2 - 0.0008
    grille = moved(decal(0.11, 0.11, elliptical=True), (-0.055, front, 0.075))
    dial = moved(decal(0.095, 0.045), (0.06, front, 0.1))
    knobs = merge(*(moved(lathe([(0, 0), (0.014, 0), (0.014, 0.012), (0.011, 0.016), (0, 0.016)], 24),
                           (x, -depth / 2, 0.042), Z_TO_MINUS_Y) for x in (0.035, 0.085)))
    grip = tube(arc(0.075, 15, 165, points=24) + (0, 0, height - 0.025), 0.008, sections=12)
    antenna = tube(np.linspace((0.095, 0.02, height - 0.005), (0.175, 0.02, height + 0.14), 3), [0.004, 0.003, 0.002],
                   sections=10)
    return [
        Part("case", case, Material("radio case", (0.18, 0.55, 0.55), roughness=0.35)),
        Part("speaker grille", grille, Material("grille", (1, 1, 1), roughness=0.6, texture=_grille_texture())),
        Part("tuning dial", dial, Material("dial", (1, 1, 1), roughness=0.3, texture=_dial_texture())),
        Part("knobs", knobs, Material("knob", (0.92, 0.9, 0.82), roughness=0.35)),
        Part("handle", grip, Material("handle", (0.12, 0.08, 0.06), roughness=0.6)),
        Part("antenna", antenna, CHROME),
    ]


def fan() -> list[Part]:
    """A desk fan: round base, stand, motor housing, four blades inside a wire cage facing −Y."""
    white = Material("fan white", (0.93, 0.93, 0.92), roughness=0.4)
    hub_z = 0.2
    base = lathe([(0, 0), (0.09, 0), (0.09, 0.01), (0.07, 0.03), (0.02, 0.035), (0, 0.035)], 40)
    stand = cylinder(0.012, hub_z - 0.02, 20)
    motor = moved(lathe([(0, -0.06), (0.03, -0.058), (0.045, -0.035), (0.045, 0.0), (0.0, 0.0)], 32), (0, 0.085, hub_z),
                  (-90, 0, 0))
    hub = moved(lathe([(0, 0), (0.022, 0), (0.02, 0.012), (0.0, 0.018)], 24), (0, -0.005, hub_z), Z_TO_MINUS_Y)
    blades = []
    for k in range(4):
        pitched = moved(ellipsoid((0.045, 0.005, 0.07), 2), (0, 0, 0.072), rotate_deg=(0, 0, 25))
        blades.append(moved(pitched, (0, 0.005, hub_z), rotate_deg=(0, 90 * k + 20, 0)))
    wires = []
    for y, dome in ((-0.028, -0.03), (0.03, 0.015)):  # front cage bulges towards the viewer
        wires.append(loop(arc(0.14, 0, 360, points=72, plane="xz")[:-1] + (0, y, hub_z), 0.003, sections=8))
        for k in range(20):
            a = np.radians(18 * k)
            s = np.linspace(0.02, 0.14, 8)
            d = y + dome * np.cos(s / 0.14 * np.pi / 2)
            wires.append(tube(np.stack([s * np.cos(a), d, hub_z + s * np.sin(a)], 1), 0.0013, sections=6))
        for rr in (0.05, 0.095):
            d = y + dome * np.cos(rr / 0.14 * np.pi / 2)
            wires.append(loop(arc(rr, 0, 360, points=48, plane="xz")[:-1] + (0, d, hub_z), 0.0015, sections=6))
    badge = moved(decal(0.035, 0.035, elliptical=True), (0, -0.0595, hub_z))
    return [
        Part("base", base, white),
        Part("stand", stand, white),
        Part("motor", motor, white),
        Part("hub", hub, Material("hub", (0.35, 0.55, 0.8), roughness=0.3)),
        Part("blades", merge(*blades), Material("blade", (0.45, 0.7, 0.92), roughness=0.2)),
        Part("cage", merge(*wires), Material("cage", (0.8, 0.81, 0.83), roughness=0.3, metallic=0.9)),
        Part("badge", badge, Material("badge", (0.2, 0.35, 0.7), roughness=0.3)),
    ]


def _mesh_texture() -> Image.Image:
    """A microphone's wire mesh: a fine dark diagonal lattice on silver."""
    img = Image.new("RGB", (256, 256), (200, 200, 205))
    draw = ImageDraw.Draw(img)
    for k in range(-256, 512, 12):
        draw.line((k, 0, k + 256, 256), fill=(70, 70, 75), width=3)
        draw.line((k, 256, k + 256, 0), fill=(70, 70, 75), width=3)
    return img


def microphone() -> list[Part]:
    """A stage microphone in a clip on a desk stand: weighted base, pole, black handle, ball grille."""
    base = lathe([(0, 0), (0.055, 0), (0.055, 0.01), (0.045, 0.02), (0.008, 0.022), (0, 0.022)], 40)
    pole_top = 0.105
    pole = cylinder(0.0055, pole_top, 16)
    tilt, held_at = (28, 0, 0), 0.045
    handle = lathe([(0, 0), (0.011, 0), (0.013, 0.02), (0.019, 0.1), (0.021, 0.11), (0, 0.11)], 32)
    grille = moved(uv_sphere(0.03, 16, 32), (0, 0, 0.13))
    band = lathe([(0.021, 0.106), (0.024, 0.106), (0.024, 0.118), (0.021, 0.118)], 32)
    lean = np.radians(tilt[0])
    place = (0, held_at * np.sin(lean), pole_top - held_at * np.cos(lean))  # the clip's point lands on the pole top
    clip = moved(lathe([(0.015, -0.012), (0.019, -0.012), (0.019, 0.012), (0.015, 0.012)], 24), (0, 0, held_at))
    return [
        Part("base", base, Material("stand black", (0.08, 0.08, 0.09), roughness=0.3, metallic=0.6)),
        Part("pole", pole, CHROME),
        Part("clip", moved(clip, place, tilt), BLACK_PLASTIC),
        Part("handle", moved(handle, place, tilt), BLACK_PLASTIC),
        Part("grille", moved(grille, place, tilt), Material("mesh", (1, 1, 1), roughness=0.3, metallic=0.7,
                                                              texture=_mesh_texture())),
        Part("band", moved(band, place, tilt), CHROME),
    ]


RECIPES: dict[str, Callable[[], list[Part]]] = {
    "telephone": telephone,
    "lamp": lamp,
    "camera": camera,
    "headphones": headphones,
    "calculator": calculator,
    "laptop": laptop,
    "radio": radio,
    "fan": fan,
    "microphone": microphone,
}
