/**
 * `/js/script.full.js`: the tracker (./script.ts) and tracking without code (./extra.ts) in
 * one file, for a tag that asks for any of the extra parts (each still switched on by its
 * own attribute).
 */
import './script.ts';
import './extra.ts';
